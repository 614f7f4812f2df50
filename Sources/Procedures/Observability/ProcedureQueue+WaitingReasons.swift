import Foundation

extension ProcedureQueue {
    /// Every procedure added to this queue that waits, with the reason (see
    /// ``Procedure/waitingReason``), in no particular order: those not executing yet, and
    /// executing ones that wait for what the library tracks (a group for its children, and
    /// those children in turn; a delay for its clock; one that gave its slot back for a slot
    /// again), so that a stuck graph shows whole. Plain operations and barriers are left out.
    ///
    /// ```swift
    /// for (procedure, reason) in queue.waitingProcedures {
    ///     print("\(procedure.name ?? "?"): \(reason)")
    /// }
    /// ```
    public var waitingProcedures: [(procedure: Procedure, reason: WaitingReason)] {
        var waiting: [(procedure: Procedure, reason: WaitingReason)] = []
        var pending = unfinishedMembers
        while let member = pending.popLast() {
            switch member.role {
            case .operationRunner, .barrier: continue
            case .ordinary, .group: break
            }
            guard let reason = member.waitingReason else { continue }
            waiting.append((member, reason))
            if case .children(let children) = reason { pending += children }
        }
        return waiting
    }

    /// ``waitingProcedures`` as text, one "name: reason" line each, sorted by name; empty
    /// when nothing waits.
    public var waitingReport: String {
        waitingProcedures.map { "\($0.procedure.displayName): \($0.reason)" }.sorted().joined(separator: "\n")
    }
}
