import Foundation

// Cycle detection. A cycle can only hold procedures that wait (none of them can ever become
// ready), and it is complete only once its last member is added. That member already has a
// waiter (the next procedure on the cycle), so the search runs only for a procedure that is
// still waiting *and* is waited on, and walks only waiting dependencies. Adding a chain in
// either order therefore costs O(1) per procedure.
extension Procedure {
    static func checkForCycle(through start: Procedure) {
        guard start.hasWaiters, let cycle = findCycle(through: start) else { return }
        let names = cycle.map(\.displayName)
        ProcedureMisuse.report(
            .dependencyCycle,
            "dependency cycle \((names + [names[0]]).joined(separator: " -> ")); its procedures were cancelled so that they finish. Remove one of these dependencies.",
            subject: start)
        // Together: cancelled one by one, the first could finish and release the next, which
        // might start before its own cancel arrived.
        cancelTogether(cycle) { _ in [ProcedureError.dependencyCycle(names: names)] }
    }

    /// A path start -> … -> start along waiting dependencies, without the repeated start.
    private static func findCycle(through start: Procedure) -> [Procedure]? {
        let firstStep = start.waitingDependencies
        if firstStep.isEmpty { return nil }  // the common case: skip the allocations below
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
        // Each frame: a procedure on the current path and the dependencies left to explore.
        var path: [(procedure: Procedure, pending: [Procedure])] = [(start, firstStep)]
        while !path.isEmpty {
            guard let next = path[path.count - 1].pending.popLast() else {
                path.removeLast()
                continue
            }
            if next === start { return path.map(\.procedure) }
            guard visited.insert(ObjectIdentifier(next)).inserted else { continue }
            path.append((next, next.waitingDependencies))
        }
        return nil
    }
}
