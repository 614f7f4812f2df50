import Foundation
import ProceduresSupport

// Cycle detection. A cycle can only hold procedures that wait (none of them can ever become
// ready), and it is complete only once its last member is added. That member already has a
// waiter (the next procedure on the cycle), so the search runs only for a procedure that is
// still waiting *and* is waited on, and walks only waiting dependencies. Adding a chain in
// either order therefore costs O(1) per procedure.
extension Procedure {
    /// Serialises finding a cycle with deciding its cancels, so that two threads closing the
    /// same cycle at once find it, cancel it and report it once. Nothing under it runs user
    /// code: it only reads procedures' states and records cancel decisions (the members'
    /// names, which read the open `name`, are read with it let go).
    private static let cycleLock = Lock()

    static func checkForCycle(through start: Procedure) {
        guard start.hasWaiters else { return }
        var found: (names: [String], cancels: CancelBatch)?
        var cycle = cycleLock.withLock { findCycle(through: start) }
        while let members = cycle {
            let names = members.map(\.displayName)
            // Found again with the names in hand: the cycle may have been broken (a dependency
            // removed) or cancelled by another thread meanwhile, or another closed instead.
            cycle = cycleLock.withLock { () -> [Procedure]? in
                guard let again = findCycle(through: start) else { return nil }
                guard again.elementsEqual(members, by: ===) else { return again }
                let errors: [any Error] = [ProcedureError.dependencyCycle(names: names)]
                // Decided together, handled after: cancelled one by one, the first could finish
                // and release the next, which might start before its own cancel arrived.
                let cancels = CancelBatch(deciding: again) { _ in errors }
                if cancels.decidedCount > 0 { found = (names, cancels) }
                return nil
            }
        }
        guard let found else { return }
        ProcedureMisuse.report(
            .dependencyCycle,
            "dependency cycle \((found.names + [found.names[0]]).joined(separator: " -> ")); its procedures were cancelled so that they finish. Remove one of these dependencies.",
            subject: start)
        found.cancels.handle()
    }

    /// Whether a new cycle through this procedure could pass through `barrier`, a procedure
    /// that waits for everything its queue held before it. Such a cycle ends in a waiter of this
    /// procedure that the barrier waits for, so not one that waits for the barrier itself (if
    /// it did, it and the barrier would already form a cycle, found when that one closed).
    /// Without this test, every link of a chain added dependents-first behind a pending
    /// barrier would search all that the barrier waits for: quadratic.
    private func mayCloseACycle(through barrier: Procedure) -> Bool {
        let waiters = lock.withLock { state.waiters }
        return waiters.contains { waiter in
            !waiter.lock.withLock { waiter.state.dependencies.contains { $0 === barrier } }
        }
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
            // A barrier depends on everything added before it: most searches through one
            // cannot close a cycle.
            if next.role == .barrier, !start.mayCloseACycle(through: next) { continue }
            path.append((next, next.waitingDependencies))
        }
        return nil
    }
}
