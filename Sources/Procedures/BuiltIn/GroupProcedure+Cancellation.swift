import Foundation

// A group's cancellation, all of it. The rules:
//
// 1. Cancelling the group cancels every child at once, as one act (`cancelTogether`): no
//    child can start because another was cancelled and finished first. It happens on the
//    thread that calls `cancel()`, before it returns (`.cancelRequested`), so no child
//    starts uncancelled afterwards; it is repeated, harmlessly, once the group's own cancel
//    hooks run (`.cancelTookEffect`).
// 2. A child added after the cancel is cancelled as it is adopted.
// 3. A child of a group cancelled with errors gets `ProcedureError.parentCancelled(errors:)`;
//    a group cancelled without errors cancels its children without errors.
// 4. The group still finishes only after every child has finished. A cancelled group runs
//    its children even while the user suspends it (they must finish), and one cancelled
//    before it started skips `execute()` but still starts its (cancelled) children.
// 5. The group reports its own cancel errors, not the echoes its cancelled children report;
//    a child that failed on its own keeps its errors, even if the group was cancelled since.
// 6. A group released without ever starting cancels its children and lets them drain (they
//    hold their scheduler, and whoever waits for them must hear that they finished).
//
// (The group's `respond(to:)` hooks these rules into the procedure's life; as an override it
// must live in the class body, at the end of GroupProcedure.swift. Of its moments
// (BuiltInMoment.swift), `.cancelRequested` and `.cancelTookEffect` only call in here, and
// `.startedWhileCancelled` starts the children (rule 4).)
extension GroupProcedure {
    /// Rules 1 and 4.
    func cancelChildren(parentErrors errors: [any Error]) {
        // A plain child's runner is cancelled with it, so that it starts the (cancelled)
        // child at once instead of waiting for the child's dependencies.
        let children = groupLock.withLock { group.children + group.runners.values.map { $0 as Operation } }
        Procedure.cancelTogether(children) { _ in Self.childCancelErrors(parentErrors: errors) }
        applySuspension()
    }

    /// Rule 2: the cancel request is recorded the moment `cancel()` is called; a child added
    /// after that is cancelled here, one added before is in the snapshot `cancelChildren` takes.
    func cancelAsChild(_ child: Operation, groupErrors: [any Error]) {
        Procedure.cancelTogether([child]) { _ in Self.childCancelErrors(parentErrors: groupErrors) }
    }

    private static func childCancelErrors(parentErrors: [any Error]) -> [any Error] {
        parentErrors.isEmpty ? [] : [ProcedureError.parentCancelled(errors: parentErrors)]
    }

    /// Rule 5: a cancelled child of a cancelled group reports an echo of the group's cancel.
    func isEchoOfGroupCancel(_ child: Operation) -> Bool {
        child.isCancelled && isCancelled
    }

    /// Rule 6, from `deinit`.
    func releaseChildrenIfNeverStarted() {
        if !group.hasStarted {
            Procedure.cancelTogether(group.children + group.runners.values.map { $0 as Operation }) { _ in [] }
            _ = scheduler.setSuspended(false, decision: .max)
        }
    }
}
