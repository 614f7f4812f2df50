import Foundation
import ProceduresSupport

/// The two waits that can never end because a procedure would wait for itself, found at the
/// moment they begin (by the procedure's ``ConditionGate``), reported as
/// ``ProcedureMisuse/Kind/deadlock`` and ended by cancelling the procedure with
/// ``ProcedureError/deadlock(reason:)``:
///
/// - a procedure asks for an exclusivity category that one of its enclosing groups, at any
///   depth, holds: the group releases it only when it finishes, and it finishes only after
///   its children;
/// - one of a procedure's conditions depends on a procedure that waits for it (directly, along
///   a chain of dependencies or conditions' dependencies, or by being a child of a group that
///   has not started): the condition is evaluated only once that dependency finished.
///
/// Both searches run only where such a wait is possible: the first for a procedure inside a
/// group that asks for categories (one step per enclosing group), the second for a procedure
/// whose conditions have dependencies (each procedure not yet started that those wait for is
/// visited once). Anything else pays nothing.
enum WaitForItself {
    /// The nearest group enclosing a procedure owned by `owner` that holds one of `categories`.
    static func enclosingGroup(
        holdingAnyOf categories: [String], from owner: (any ProcedureOwner)?
    ) -> (group: GroupProcedure, category: String)? {
        var next = owner as? GroupProcedure
        while let group = next {
            let (request, parentOwner) = group.lock.withLock { (group.state.gate?.request, group.state.owner) }
            if let request, let category = categories.first(where: request.categories.contains),
                ExclusivityManager.shared.isGranted(request)
            {
                return (group, category)
            }
            next = parentOwner as? GroupProcedure
        }
        return nil
    }

    /// A chain from one of `dependencies` (of `guarded`'s conditions) to `guarded`, each
    /// procedure waiting for the next, if there is one.
    static func chain(from dependencies: [Procedure], backTo guarded: Procedure) -> [Procedure]? {
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(guarded)]
        // Depth first, with a stack of its own: each frame is a procedure on the current chain
        // and what it waits for that is left to explore.
        var chain: [(procedure: Procedure, pending: [Procedure])] = []
        for dependency in dependencies where visited.insert(ObjectIdentifier(dependency)).inserted {
            chain = [(dependency, waits(of: dependency))]
            while !chain.isEmpty {
                guard let next = chain[chain.count - 1].pending.popLast() else {
                    chain.removeLast()
                    continue
                }
                if next === guarded { return chain.map(\.procedure) + [guarded] }
                guard visited.insert(ObjectIdentifier(next)).inserted else { continue }
                chain.append((next, waits(of: next)))
            }
        }
        return nil
    }

    /// What `procedure` waits for before it can start: nothing once it has started (the
    /// library then holds it back no more); else its unfinished dependencies, its conditions'
    /// dependencies, and the group it belongs to if that group has not started.
    private static func waits(of procedure: Procedure) -> [Procedure] {
        // Conditions are read under the lock: a procedure not yet enqueued may be given more.
        let (phase, dependencies, conditions, owner) = procedure.lock.withLock {
            (procedure.state.phase, procedure.state.dependencies, procedure.state.gate?.conditions ?? ConditionList(), procedure.state.owner)
        }
        guard phase < .started else { return [] }
        var waits = dependencies
        if !conditions.isEmpty {
            var produced: [Procedure] = []
            Condition.collectDependencies(of: conditions, into: &waits, produced: &produced)
        }
        if let group = owner as? GroupProcedure, group.lock.withLock({ group.state.phase < .started }) {
            waits.append(group)
        }
        return waits.filter { !$0.isFinished }
    }

    /// Describes `chain` (a condition's dependency first, the guarded procedure last).
    static func describe(_ chain: [Procedure]) -> String {
        chain.map(\.displayName).joined(separator: " -> ")
    }
}
