import Foundation

// Cancelling several procedures as one act (a group's children, a dependency cycle): every
// cancel is decided first, then all are handled, so none of them can start because another
// was cancelled and finished first.
extension Procedure {
    /// Decides to cancel and queues the cancel event without handling it; says whether it was
    /// decided and whether the caller must then call `drainEvents()`.
    func requestCancelWithoutHandling(errors: [any Error]) -> CancelRequestOutcome {
        lock.withLock {
            guard state.requestCancel(errors: errors) == .post else { return .notDecided }
            return state.mailbox.post(.cancel(errors: errors)) ? .decidedMustDrain : .decided
        }
    }

    /// What `requestCancelWithoutHandling` did.
    enum CancelRequestOutcome { case notDecided, decided, decidedMustDrain }

    /// Cancels `operations` as one act: every procedure's cancel is decided and queued, plain
    /// operations are cancelled, and only then are the procedures' cancel events handled. A
    /// procedure that finishes because it was cancelled therefore cannot release a dependent
    /// that is about to be cancelled too (its start is queued behind its cancel).
    /// Returns how many procedures this call decided to cancel (others were already cancelled
    /// or finishing).
    @discardableResult
    static func cancelTogether(_ operations: [Operation], errors: (Procedure) -> [any Error]) -> Int {
        var decided = 0
        var toHandle: [Procedure] = []
        var requested: [(Procedure, [any Error])] = []
        var plain: [Operation] = []
        for operation in operations {
            if let procedure = operation as? Procedure {
                let procedureErrors = errors(procedure)
                switch procedure.requestCancelWithoutHandling(errors: procedureErrors) {
                case .notDecided: continue
                case .decided: break
                case .decidedMustDrain: toHandle.append(procedure)
                }
                decided += 1
                requested.append((procedure, procedureErrors))
            } else {
                plain.append(operation)
            }
        }
        for operation in plain { operation.cancel() }
        for (procedure, procedureErrors) in requested { procedure.cancellationWasRequested(errors: procedureErrors) }
        for procedure in toHandle { procedure.drainEvents() }
        return decided
    }

    /// True once a cancel has been decided (before its hooks run), and the errors so far.
    var cancelRequest: [any Error]? {
        lock.withLock { state.cancellation == .none ? nil : state.errors }
    }
}
