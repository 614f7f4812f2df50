import Foundation

extension Procedure {
    /// An event of a procedure that work can be done *before*: while its will-hooks run, the
    /// event has not completed yet, and what is done there (see ``Procedure/produce(_:before:)``)
    /// is done before it.
    ///
    /// ProcedureKit handed a `PendingEvent` object to will-execute and will-finish observers;
    /// here the observers run one at a time among the procedure's callbacks, so naming the
    /// event is enough.
    public enum PendingEvent: Sendable, Equatable, CustomStringConvertible {
        /// The call to `execute()`: pending while the will-execute observers run.
        case execute
        /// `isFinished` becoming true: pending while `procedureWillFinish(withErrors:)` and
        /// the will-finish observers run.
        case finish

        public var description: String {
            switch self {
            case .execute: return "execute"
            case .finish: return "finish"
            }
        }

        /// Under the procedure's lock: true if `lifecycle` is where this event is pending.
        func isPending(in lifecycle: borrowing ProcedureLifecycle) -> Bool {
            guard lifecycle.owner != nil else { return false }
            switch self {
            case .execute: return lifecycle.phase == .started && !lifecycle.hasBegunFinishing
            case .finish: return lifecycle.phase == .finishing
            }
        }
    }

    /// Adds `operation` to the queue this procedure runs on before `event` completes: call it
    /// from the hooks that run while the event is pending (a will-execute observer for
    /// `.execute`; `procedureWillFinish(withErrors:)` or a will-finish observer for `.finish`).
    ///
    /// The will-add observers, the add and the did-add observers run before this returns, so
    /// the operation is on the queue before `execute()` is called, or before the procedure
    /// is finished. With `.finish` a procedure may produce work as it finishes (which plain
    /// ``produce(_:)`` refuses once it began finishing); a ``GroupProcedure`` whose child does
    /// so counts the operation as its child before it counts that child out.
    ///
    /// ```swift
    /// upload.addWillFinishBlockObserver { upload, errors in
    ///     try? upload.produce(CleanUp(), before: .finish)
    /// }
    /// ```
    ///
    /// - Throws: ``ProcedureError/produceRequiresRunningProcedure`` if `event` is not pending
    ///   (or the procedure is not on a queue); reported to ``ProcedureMisuse`` as well.
    public final func produce(_ operation: Operation, before event: PendingEvent) throws {
        guard lock.withLock({ event.isPending(in: state.lifecycle) }) else {
            ProcedureMisuse.report(
                .produceWithoutQueue,
                "\(displayName) called produce(_:before: .\(event)) while its \(event) was not pending (call it from the hooks that run before the \(event)), or while not on a ProcedureQueue; the operation was not added.",
                subject: self)
            throw ProcedureError.produceRequiresRunningProcedure
        }
        // Inline: the caller is one of the procedure's callbacks, so the add observers run
        // among them, and the event waits for them.
        handleProduce(operation)
    }
}
