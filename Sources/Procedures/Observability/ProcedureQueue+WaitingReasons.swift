import Foundation

extension ProcedureQueue {
    /// Every procedure added to this queue that is not executing yet, with the reason (see
    /// ``Procedure/waitingReason``), in no particular order. Plain operations and barriers
    /// are left out; a group's children are the group's, not the queue's.
    ///
    /// ```swift
    /// for (procedure, reason) in queue.waitingProcedures {
    ///     print("\(procedure.name ?? "?"): \(reason)")
    /// }
    /// ```
    public var waitingProcedures: [(procedure: Procedure, reason: WaitingReason)] {
        unfinishedMembers.compactMap { member in
            guard !(member is PlainOperationRunner), !(member is BarrierProcedure),
                let reason = member.waitingReason
            else { return nil }
            return (member, reason)
        }
    }

    /// ``waitingProcedures`` as text, one "name: reason" line each, sorted by name; empty
    /// when nothing waits.
    public var waitingReport: String {
        waitingProcedures.map { "\($0.procedure.displayName): \($0.reason)" }.sorted().joined(separator: "\n")
    }
}
