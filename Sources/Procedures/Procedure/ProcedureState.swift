import Foundation

/// All mutable state of a procedure, guarded by the procedure's lock: its lifecycle (the
/// state machine, see ``ProcedureLifecycle``) and the bookkeeping around it (events,
/// observers, dependencies, waiters). Noncopyable, as its lifecycle is.
struct ProcedureState: ~Copyable {
    /// The state machine: phase, owner, readiness, cancellation, finish, slot. Only its
    /// transitions change it.
    var lifecycle = ProcedureLifecycle()
    var mailbox = EventMailbox()
    var observers: [any ProcedureObserver] = []
    var name: String?

    /// Procedures this one depends on (what `addDependency` recorded).
    var dependencies: [Procedure] = []
    /// Procedures waiting on this one; told when it finishes.
    var waiters: [Procedure] = []
    /// Dependents outside any ProcedureQueue that asked for `isReady` (a plain
    /// `OperationQueue` does when they are added to it): they hear `isReady` change when this
    /// procedure finishes, since such a queue re-reads it only when told.
    var readinessListeners: [Procedure] = []
    /// The future of this procedure's outcome (see Bridges): one per procedure, so that every
    /// consumer shares it and the tree rule of cancellation holds.
    var completionFuture: AnyObject?
    /// The output future, derived from the completion future; held weakly so that, once no
    /// one uses it, it stops counting as a consumer.
    weak var outputFuture: AnyObject?
    /// The procedure's conditions: none, one, or the gate that checks them (and takes the
    /// categories they claim).
    var conditions = ProcedureConditions.none
    /// Its own timeout (the first `timeout(after:)`), if it has one.
    var timeout: ProcedureTimeout?
    /// Its number, creation time, group and producer for logs and traces.
    var instrumentation = InstrumentationFields()
    /// Its progress: units reported while nobody tracks it, or its tracker, made on first use
    /// (see Progress/Procedure+Progress.swift).
    var progress = ProgressStorage.untracked(nil)

    // The flags sit together, after the rest, so that they share one word.
    /// Set once a plain `Operation` dependency was added (Foundation records those).
    var hasPlainDependencies = false
    /// Set once the waiters were told of the finish (after Foundation was): later waiters
    /// find the procedure finished.
    var waitersReleased = false
    /// Set once this procedure has registered as a readiness listener with its dependencies.
    var listensForReadiness = false

    // Read-only views of the lifecycle, for the many places that only ask.
    var phase: ProcedurePhase { lifecycle.phase }
    var cancellation: CancellationPhase { lifecycle.cancellation }
    var errors: [any Error] { lifecycle.errors }
    var owner: (any ProcedureOwner)? { lifecycle.owner }
    var gate: ConditionGate? { conditions.gate }
    var hasBegunFinishing: Bool { lifecycle.hasBegunFinishing }
}
