import Foundation

// Cancelling several procedures as one act — the one mechanism for it, used by groups (their
// children) and by cycle detection (a cycle's members): every cancel is decided first, then
// all are handled, so none of them can start because another was cancelled and finished first.
extension Procedure {
    /// Decides to cancel and queues the cancel event without handling it; says whether it was
    /// decided and whether the caller must then call `drainEvents()`.
    func requestCancelWithoutHandling(errors: [any Error]) -> CancelRequestOutcome {
        lock.withLock {
            guard state.lifecycle.requestCancel(errors: errors) == .post else { return .notDecided }
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
        let batch = CancelBatch(deciding: operations, errors: errors)
        batch.handle()
        return batch.decidedCount
    }

    /// A set of cancels decided together and handled later, in two steps so that a caller can
    /// decide under a lock of its own (cycle detection does) and handle once it is released.
    struct CancelBatch {
        private var requested: [(Procedure, [any Error])] = []
        private var toDrain: [Procedure] = []
        private var plain: [Operation] = []

        /// How many procedures this batch decided to cancel.
        var decidedCount: Int { requested.count }

        /// Decides every procedure's cancel and queues its event, handling none. Takes only
        /// the procedures' own locks and runs no user code.
        init(deciding operations: [Operation], errors: (Procedure) -> [any Error]) {
            for operation in operations {
                guard let procedure = operation as? Procedure else {
                    plain.append(operation)
                    continue
                }
                let procedureErrors = errors(procedure)
                switch procedure.requestCancelWithoutHandling(errors: procedureErrors) {
                case .notDecided: continue
                case .decided: break
                case .decidedMustDrain: toDrain.append(procedure)
                }
                requested.append((procedure, procedureErrors))
            }
        }

        /// Cancels the plain operations, tells each procedure its cancel was requested, then
        /// handles the queued cancel events. Call it without holding any lock.
        func handle() {
            for operation in plain { operation.cancel() }
            for (procedure, errors) in requested { _ = procedure.respond(to: .cancelRequested(errors: errors)) }
            for procedure in toDrain { procedure.drainEvents() }
        }
    }

    /// True once a cancel has been decided (before its hooks run), and the errors so far.
    var cancelRequest: [any Error]? {
        lock.withLock { cancelRequestLocked }
    }

    /// ``cancelRequest``, for a caller that holds `lock`.
    var cancelRequestLocked: [any Error]? { state.cancellation == .none ? nil : state.errors }
}
