import Foundation

/// Where a procedure is in its life. Only ever moves forward.
enum ProcedurePhase: UInt8, Comparable {
    /// Created; not yet claimed by a queue or started.
    case initial
    /// Claimed by a queue (or started by hand) but waiting for dependencies to finish.
    case waiting
    /// Ready: handed to its owner's scheduler (which will run it when a slot is free), or
    /// about to be started by whoever called `start()`.
    case ready
    /// `start()` was accepted; the start events are queued or running.
    case started
    /// `execute()` has been called.
    case executing
    /// The finish event is being handled (will-finish hooks run now).
    case finishing
    /// `isFinished` is true.
    case finished

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Cancellation moves from `none` to `requested` (accepted: `isCancelled` is true from here;
/// the will-cancel hooks have not run yet) to `cancelled` (the cancel event was handled: the
/// procedure's own machinery, readiness and start, treats it as cancelled from here, so that
/// the cancel hooks always run before a cancelled procedure skips `execute()` or finishes).
enum CancellationPhase: UInt8 {
    case none, requested, cancelled
}

/// What to do once a waiting procedure becomes ready.
enum ReadyAction {
    /// Hand it to its owner's scheduler, which runs it when a slot is free.
    case schedule(ProcedureScheduler)
    /// `start()` was already called (by hand, or by a plain `OperationQueue`): run it.
    case start
    /// Dependencies finished but conditions or exclusivity still hold it back: check them
    /// (see `ConditionGate`). Returned by `becomeReadyIfPossible`, never stored.
    case checkConditions
}

/// All mutable state of a procedure, guarded by the procedure's lock.
///
/// Kept as one value so the rules live in one place and every transition reads as a small
/// mutating method that returns what the caller must do after unlocking.
struct ProcedureState {
    var phase: ProcedurePhase = .initial
    var cancellation: CancellationPhase = .none
    var errors: [any Error] = []
    /// Set by the first accepted `finish`; its presence means "began finishing".
    var finishErrors: [any Error]?
    var mailbox = EventMailbox()
    var observers: [any ProcedureObserver] = []
    var name: String?

    /// The queue or group that owns the procedure (set when added, cleared when finished).
    var owner: (any ProcedureOwner)?
    /// The scheduler whose slot the procedure holds while it runs (given back when it finishes).
    var slot: ProcedureScheduler?
    /// Procedures this one depends on (what `addDependency` recorded).
    var dependencies: [Procedure] = []
    /// Set once a plain `Operation` dependency was added (Foundation records those).
    var hasPlainDependencies = false
    /// How many of those (and of the plain ones) have not finished yet, while waiting.
    var unfinishedDependencies = 0
    var readyAction: ReadyAction?
    /// Procedures waiting on this one; told when it finishes.
    var waiters: [Procedure] = []
    /// Set once the waiters were told of the finish (after Foundation was): later waiters
    /// find the procedure finished.
    var waitersReleased = false
    /// Dependents outside any ProcedureQueue that asked for `isReady` (a plain
    /// `OperationQueue` does when they are added to it): they hear `isReady` change when this
    /// procedure finishes, since such a queue re-reads it only when told.
    var readinessListeners: [Procedure] = []
    /// Set once this procedure has registered as a readiness listener with its dependencies.
    var listensForReadiness = false
    /// The future of this procedure's outcome (see Bridges): one per procedure, so that every
    /// consumer shares it and the tree rule of cancellation holds.
    var completionFuture: AnyObject?
    /// The output future, derived from the completion future; held weakly so that, once no
    /// one uses it, it stops counting as a consumer.
    weak var outputFuture: AnyObject?
    /// The procedure's conditions and exclusivity categories, if it has any.
    var gate: ConditionGate?
    /// Where the gate is; `.open` for a procedure without conditions.
    var gateStage = GateStage.open

    var hasBegunFinishing: Bool { finishErrors != nil || phase >= .finishing }

    /// Outcome of a cancel request.
    enum CancelDecision { case ignore, post }

    mutating func requestCancel(errors: [any Error]) -> CancelDecision {
        guard cancellation == .none, !hasBegunFinishing else { return .ignore }
        cancellation = .requested
        self.errors.append(contentsOf: errors)
        return .post
    }

    /// Outcome of a finish request.
    enum FinishDecision {
        /// Already finishing or finished: a second finish.
        case duplicate
        /// Not started yet: recorded, applied when the queue starts the procedure.
        case deferred
        /// Queue the finish event.
        case post
    }

    mutating func requestFinish(errors: [any Error]) -> FinishDecision {
        if hasBegunFinishing { return .duplicate }
        finishErrors = errors
        return phase >= .started ? .post : .deferred
    }

    /// Marks the procedure ready if it is waiting and nothing holds it back any more.
    mutating func becomeReadyIfPossible() -> ReadyAction? {
        guard phase == .waiting,
            unfinishedDependencies == 0 || cancellation == .cancelled,
            let action = readyAction
        else { return nil }
        // A cancelled procedure skips its conditions: it will not execute anyway.
        if gateStage != .open && cancellation != .cancelled {
            guard gateStage == .closed else { return nil }
            gateStage = .checking
            return .checkConditions
        }
        phase = .ready
        readyAction = nil
        return action
    }
}
