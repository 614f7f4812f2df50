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
        func isPending(in lifecycle: ProcedureLifecycle) -> Bool {
            guard lifecycle.owner != nil else { return false }
            switch self {
            case .execute: return lifecycle.phase == .started && !lifecycle.hasBegunFinishing
            case .finish: return lifecycle.phase == .finishing
            }
        }
    }
}
