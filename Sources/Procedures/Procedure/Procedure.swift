import Foundation
import ProceduresSupport
import Synchronization

/// A unit of asynchronous work: subclass it, override ``execute()``, and call ``finish()``
/// when the work is done. Add it to a ``ProcedureQueue`` to run it.
///
/// ```swift
/// final class Greet: Procedure, @unchecked Sendable {
///     override func execute() {
///         print("Hello")
///         finish()
///     }
/// }
/// queue.addOperation(Greet())
/// ```
///
/// Subclasses restate `@unchecked Sendable` (Swift 6 asks every `Operation` subclass to) and
/// keep that promise: their own stored state must be touched only from the procedure's
/// callbacks, which never overlap, or under a lock of their own.
///
/// ## Callbacks never overlap
///
/// `execute()`, the `procedure…` hooks and every observer of one procedure run one at a
/// time, in a defined order, never two at once. A `cancel()` or `finish()` called from inside
/// one of them takes effect right after it returns. Callbacks run on whichever thread caused
/// the event (the queue's worker for `execute()`, the caller of `cancel()` for the cancel
/// hooks) unless another callback of the same procedure is running, in which case they run
/// right after it, on its thread. No callback runs while the library holds a lock.
///
/// ## Event order
///
/// - Started normally: will-execute observers → `execute()` → did-execute observers →
///   (whenever `finish` is called) `procedureWillFinish(withErrors:)` → will-finish observers →
///   `isFinished` becomes true and dependents are released → `procedureDidFinish(withErrors:)`
///   → did-finish observers.
/// - Cancelled: `isCancelled` becomes true the moment `cancel()` accepts the request (even
///   while `execute()` runs, so code polling it there sees it), then, as soon as no other
///   callback runs: `procedureWillCancel(withErrors:)` → will-cancel observers →
///   `procedureDidCancel(withErrors:)` → did-cancel observers. This happens at most once, and
///   never once the procedure has begun finishing (the first of cancel and finish wins).
/// - Cancelled before it started: `execute()` is never called. The procedure is ready at once
///   (it no longer waits for its dependencies) and finishes, carrying the cancel errors, as
///   soon as its queue starts it.
/// - Cancelled while executing: only the request is delivered; the procedure decides when to
///   finish (typically from a did-cancel observer). ``DelayProcedure`` and ``GroupProcedure``
///   finish promptly.
/// - Finished twice: the second call is ignored and reported to ``ProcedureMisuse``.
open class Procedure: Operation, @unchecked Sendable {
    // @unchecked: `state` is read and written only under `lock`; `memberSlot` is atomic.
    let lock = InlineLock()
    // Always accessed under `lock`, so Swift's dynamic exclusivity checks, run at every
    // access, would find nothing.
    @exclusivity(unchecked) var state = ProcedureState()
    /// Where the procedure sits in its ``ProcedureQueue``'s list of members, written under that
    /// queue's lock. Atomic (relaxed) because two queues racing to add one procedure (a misuse
    /// that one of them refuses) both write it; a queue checks the index against its own list
    /// before trusting it, so a stale value costs a search, never a wrong removal.
    let memberSlot = Atomic<Int>(-1)
    var memberIndex: Int {
        get { memberSlot.load(ordering: .relaxed) }
        set { memberSlot.store(newValue, ordering: .relaxed) }
    }
    /// What it is to the code that handles every procedure alike (see ``ProcedureRole``).
    let role: ProcedureRole

    /// A procedure; subclasses set themselves up and call `super.init()`.
    public override init() {
        role = .ordinary
        super.init()
        if ProcedureInstrumentation.isActive { ProcedureInstrumentation.procedureCreated(self) }
    }

    /// A procedure with `role`: the initializer of the built-ins that generic code treats apart.
    init(role: ProcedureRole) {
        self.role = role
        super.init()
        if ProcedureInstrumentation.isActive { ProcedureInstrumentation.procedureCreated(self) }
    }

    deinit {
        // A procedure with a log level of its own stops counting (its links box holds it).
        if state.instrumentation.links != nil { forgetOwnLogLevel() }
    }

    // MARK: - Subclass hooks

    /// Does the procedure's work. Override it and call ``finish()`` (now or later, from any
    /// thread) exactly once when the work is done. The default finishes at once.
    ///
    /// Never called if the procedure was cancelled before it started.
    open func execute() {
        finish()
    }

    /// The first cancel hook (``isCancelled`` is already true), before will-cancel observers.
    open func procedureWillCancel(withErrors errors: [any Error]) {}

    /// Called once the procedure is cancelled, before did-cancel observers. Override it in a
    /// final class to stop work and finish; in an open class prefer a did-cancel observer,
    /// which a subclass cannot override away.
    open func procedureDidCancel(withErrors errors: [any Error]) {}

    /// Called when the procedure begins finishing, before will-finish observers.
    open func procedureWillFinish(withErrors errors: [any Error]) {}

    /// Called once the procedure has finished, before did-finish observers.
    open func procedureDidFinish(withErrors errors: [any Error]) {}

    // MARK: - State

    /// All errors the procedure carries: those it was cancelled with, then those it finished with.
    public final var errors: [any Error] { lock.withLock { state.errors } }

    /// True if the procedure carries at least one error.
    public final var failed: Bool { lock.withLock { !state.errors.isEmpty } }

    /// Always true: a procedure may finish after `start()` returns.
    public final override var isAsynchronous: Bool { true }

    /// True from the moment its queue starts it until it has finished.
    public final override var isExecuting: Bool {
        lock.withLock { state.phase >= .started && state.phase < .finished }
    }

    /// True once the procedure has finished (and for good).
    public final override var isFinished: Bool { lock.withLock { state.phase == .finished } }

    /// True once `cancel()` has accepted a cancel request, as for any `Operation`: at once,
    /// even while `execute()` runs and the cancel hooks wait for it to return. Code that polls
    /// it inside a long `execute()` sees it and can stop.
    public final override var isCancelled: Bool {
        lock.withLock { state.cancellation != .none }
    }

    /// True once every dependency has finished, or once the procedure is cancelled.
    public final override var isReady: Bool {
        let (cancelled, phase, dependencies, firstAsk) = lock.withLock {
            defer { if state.phase == .initial { state.listensForReadiness = true } }
            return (state.cancellation != .none, state.phase, state.dependencies, !state.listensForReadiness)
        }
        if cancelled { return true }
        if phase >= .ready { return super.isReady }
        if phase == .initial && firstAsk {
            // Asked before any ProcedureQueue claimed it: most likely a plain OperationQueue
            // adding it, which re-reads `isReady` only when told. Ask the dependencies to tell.
            // (Registered only on demand, so procedures that never meet a plain queue keep no
            // references from their dependencies back to them.)
            for dependency in dependencies { dependency.addReadinessListener(self) }
        }
        return dependencies.allSatisfy { $0.isFinished } && super.isReady
    }

    /// The procedure's name, for logs and test failure messages. Thread-safe.
    open override var name: String? {
        get { lock.withLock { state.name } }
        set { lock.withLock { state.name = newValue } }
    }

    /// The name, or the type's name if none was set.
    package var displayName: String {
        assertNoLibraryLockHeld("name (an open property, read for displayName)")
        return name ?? String(describing: type(of: self))
    }

    /// True once a queue (or a group) has taken the procedure, or it was started by hand.
    /// A procedure that is not enqueued will not run until something adds or starts it.
    public final var isEnqueued: Bool { lock.withLock { state.phase != .initial } }

    /// One line on where the procedure is in its life, for failure messages.
    package var stateSummary: String {
        let (phase, cancellation, errors) = lock.withLock {
            (state.phase, state.cancellation, state.errors)
        }
        var summary = "\(displayName): \(phase)"
        if let gate = conditionGateSummary { summary += ", \(gate)" }
        if cancellation != .none { summary += ", \(cancellation)" }
        if !errors.isEmpty { summary += ", errors: \(errors)" }
        return summary
    }

    // MARK: - Finishing

    /// Finishes the procedure with no errors. See ``finish(withErrors:)``.
    public final func finish() { finish(withErrors: []) }

    /// Finishes the procedure with `error`, if any. See ``finish(withErrors:)``.
    public final func finish(withError error: (any Error)?) {
        finish(withErrors: error.map { [$0] } ?? [])
    }

    /// Finishes the procedure, adding `errors` to ``errors``.
    ///
    /// Call it exactly once, from any thread. The first call wins; a later call is ignored and
    /// reported as ``ProcedureMisuse/Kind/finishedTwice``. (A ``GroupProcedure`` finishes by
    /// itself; calling this on one is reported as ``ProcedureMisuse/Kind/finishedByHand``.)
    /// Called before the procedure has started (from a will-execute or did-cancel observer,
    /// say), it is remembered: `execute()` is then skipped and the procedure finishes as soon
    /// as its queue starts it.
    public final func finish(withErrors errors: [any Error]) {
        switch respond(to: .finishCalledByHand(errors: errors)) {
        case .handled: return
        case .proceed: if !requestFinish(errors: errors) { reportSecondFinish() }
        }
    }

    /// Reports a `finish` called on a procedure that finishes by itself.
    func reportFinishedByHand() {
        ProcedureMisuse.report(
            .finishedByHand,
            "finish() was called on \(displayName), which finishes by itself once its work is done; the call was ignored. Cancel it to stop it early.",
            subject: self)
    }

    /// Finishing that the framework does on the procedure's behalf: losing to an earlier
    /// finish is expected there, not misuse. (`package`: the process procedures finish this way.)
    package func finishAutomatically(withErrors errors: [any Error] = []) {
        _ = requestFinish(errors: errors)
    }

    /// Returns false if the procedure had already begun finishing. `onAccepted` runs (under
    /// the procedure's lock: it must only store a value) when this finish is the one that wins.
    func requestFinish(errors: [any Error], onAccepted: () -> Void = {}) -> Bool {
        var accepted = true
        send { state in
            switch state.lifecycle.requestFinish(errors: errors) {
            case .duplicate:
                accepted = false
                return nil
            case .deferred:
                onAccepted()
                return nil
            case .post:
                onAccepted()
                return .finish
            }
        }
        return accepted
    }

    /// Reports a finish that lost to an earlier one.
    func reportSecondFinish() {
        ProcedureMisuse.report(
            .finishedTwice,
            "\(displayName) was finished twice; the second finish was ignored. Make sure exactly one code path calls finish().",
            subject: self)
    }

    // MARK: - Cancelling

    /// Cancels the procedure without errors. See ``cancel(withErrors:)``.
    public final override func cancel() { cancel(withErrors: []) }

    /// Cancels the procedure with `error`. See ``cancel(withErrors:)``.
    public final func cancel(withError error: any Error) { cancel(withErrors: [error]) }

    /// Asks the procedure to stop, recording `errors`.
    ///
    /// Only the first cancel has an effect, and none once the procedure has begun finishing.
    /// `isCancelled` is true as soon as the request is accepted, before this returns. The
    /// cancel hooks run right away on this thread, or, if another callback of the procedure is
    /// running (`execute()`, say), right after it returns. A procedure that has not started
    /// will not execute; one that is executing must finish itself.
    public final func cancel(withErrors errors: [any Error]) {
        var decided = false
        send { state in
            decided = state.lifecycle.requestCancel(errors: errors) == .post
            return decided ? .cancel(errors: errors) : nil
        }
        if decided { _ = respond(to: .cancelRequested(errors: errors)) }  // no default
    }

    // MARK: - Starting

    /// Runs the procedure. A plain `OperationQueue` calls this; a ``ProcedureQueue`` and a
    /// ``GroupProcedure`` start their procedures themselves, and you normally never call it.
    ///
    /// Called by hand on a procedure that belongs to no queue, it runs it as Foundation
    /// would, waiting first for its procedure dependencies (without blocking). Called on a
    /// procedure a ``ProcedureQueue`` owns, called a second time, or called before its plain
    /// `Operation` dependencies finished, it is ignored and reported as
    /// ``ProcedureMisuse/Kind/startedOutsideQueue``.
    public final override func start() {
        guard isInitial else {
            reportStartMisuse()
            return
        }
        // Foundation tracks plain-Operation dependencies and starts a procedure only once
        // they have finished; called by hand before that, there is nothing to wait on.
        guard super.isReady || isCancelled else {
            ProcedureMisuse.report(
                .startedOutsideQueue,
                "start() was called by hand on \(displayName) before its plain Operation dependencies finished; the call was ignored. Add it to a ProcedureQueue instead.",
                subject: self)
            return
        }
        if case .claimed(let readiness) = claim(owner: nil) {
            perform(readiness)
        } else {
            reportStartMisuse()
        }
    }

    private var isInitial: Bool { lock.withLock { state.phase == .initial } }

    private func reportStartMisuse() {
        ProcedureMisuse.report(
            .startedOutsideQueue,
            "start() was called on \(displayName), which is already running, finished, or owned by a ProcedureQueue that will start it; the call was ignored. Add procedures to a ProcedureQueue and let it start them.",
            subject: self)
    }

    // The hook for subclasses in this package (BuiltInMoment.swift).

    /// Tells a built-in subclass of `moment`; each call site does the moment's default
    /// behaviour when the answer is `.proceed`. Overrides switch on the moment and pass those
    /// they do not handle to `super`. The default handles none.
    func respond(to moment: BuiltInMoment) -> BuiltInResponse { .proceed }

    /// True while it holds a slot and waits for what the library tracks: a running group with
    /// unfinished children, or one taking back its categories.
    var waitsWhileHoldingASlot: Bool {
        let (phase, takingBack) = lock.withLock { (state.phase, state.gate?.isTakingCategoriesBack ?? false) }
        guard phase == .started || phase == .executing else { return false }
        return takingBack || !waitedForWhileRunning.isEmpty
    }

    /// False only if it certainly waits for nothing the library tracks (it simply runs):
    /// a cheap test before a search of the wait-for graph.
    var mayWait: Bool {
        // Decided under the lock from what each phase needs, so that nothing is retained.
        let (phase, leadsFurther) = lock.withLock { () -> (ProcedurePhase, Bool) in
            let phase = state.phase
            switch phase {
            case .initial, .finishing, .finished, .waiting: return (phase, false)
            // Ready, it waits only for a slot, which leads further only if a holder waits itself.
            case .ready: return (phase, state.owner?.scheduler.hasWaitingHolders ?? false)
            case .started, .executing: return (phase, state.gate?.isTakingCategoriesBack ?? false)
            }
        }
        switch phase {
        case .initial, .finishing, .finished: return false
        case .waiting: return true
        case .ready: return leadsFurther
        case .started, .executing: return leadsFurther || !waitedForWhileRunning.isEmpty
        }
    }

    /// True if something may wait for it: its dependents, its categories' waiters, its
    /// enclosing group, or a procedure waiting for a slot of its owner.
    var mayBeWaitedFor: Bool {
        let (owner, request, hasWaiters) = lock.withLock { (state.owner, state.gate?.request, !state.waiters.isEmpty) }
        return request != nil || hasWaiters || owner?.ownerRole.group != nil || (owner?.scheduler.counts.waiting ?? 0) > 0
    }

    // MARK: - Producing

    /// Adds `operation` to the queue this procedure runs on, with will-add and did-add
    /// observers around it.
    ///
    /// The operation is added right after the current callback returns, and always before a
    /// `finish()` called later from the same callback takes effect, so a ``GroupProcedure``
    /// counts it as its child before this procedure finishes.
    ///
    /// - Throws: ``ProcedureError/produceRequiresRunningProcedure`` if the procedure is not
    ///   running on a queue (reported to ``ProcedureMisuse`` as well).
    public final func produce(_ operation: Operation) throws {
        // Decided and queued in one critical section, like cancel and finish: a finish decided
        // on another thread cannot slip in between and leave the produce event with no queue.
        var running = false
        send { state in
            running = state.lifecycle.canProduce
            return running ? .produce(operation) : nil
        }
        guard running else {
            ProcedureMisuse.report(
                .produceWithoutQueue,
                "\(displayName) called produce(_:) while not running on a ProcedureQueue (or after it began finishing); the operation was not added.",
                subject: self)
            throw ProcedureError.produceRequiresRunningProcedure
        }
    }

    // MARK: - Dependencies

    /// Makes this procedure wait for `operation` to finish before it starts.
    ///
    /// Add dependencies before adding the procedure to a queue. Afterwards (or for a
    /// procedure depending on itself) the call is ignored and reported as
    /// ``ProcedureMisuse/Kind/invalidDependency``. A cancelled procedure no longer waits.
    public final override func addDependency(_ operation: Operation) {
        guard operation !== self else {
            reportDependencyMisuse("\(displayName) cannot depend on itself")
            return
        }
        guard respond(to: .dependencyProposed(operation)) == .proceed else {
            reportDependencyMisuse("\(displayName) cannot depend on its own child")
            return
        }
        let accepted = lock.withLock { () -> Bool in
            guard state.phase == .initial else { return false }
            if let procedure = operation as? Procedure {
                state.dependencies.append(procedure)
            } else {
                state.hasPlainDependencies = true
            }
            return true
        }
        guard accepted else {
            reportDependencyMisuse("addDependency was called on \(displayName) after it was added to a queue or started")
            return
        }
        if !(operation is Procedure) { super.addDependency(operation) }
    }

    /// Makes several dependencies at once. See ``addDependency(_:)``.
    public final func addDependencies(_ operations: some Sequence<Operation>) {
        for operation in operations { addDependency(operation) }
    }

    /// Removes a dependency. Like ``addDependency(_:)``, only before the procedure is enqueued.
    public final override func removeDependency(_ operation: Operation) {
        let accepted = lock.withLock { () -> Bool in
            guard state.phase == .initial else { return false }
            state.dependencies.removeAll { $0 === operation }
            return true
        }
        guard accepted else {
            reportDependencyMisuse("removeDependency was called on \(displayName) after it was added to a queue or started")
            return
        }
        if !(operation is Procedure) { super.removeDependency(operation) }
    }

    /// Drops the plain-Operation dependencies that have not finished. Called when a (cancelled)
    /// procedure finishes before them: corelibs keeps an unretained pointer from each
    /// dependency to its dependents and would use it after this procedure is freed.
    func releaseUnfinishedPlainDependencies() {
        for operation in super.dependencies where !operation.isFinished {
            super.removeDependency(operation)
        }
    }

    /// Drops every plain-Operation dependency, for a finished procedure that should not keep
    /// them alive (Foundation holds them strongly).
    func releasePlainDependencies() {
        for operation in super.dependencies { super.removeDependency(operation) }
    }

    /// Every operation this procedure depends on, procedures first. Once the procedure has
    /// finished it no longer holds its procedure dependencies (so that long chains can be
    /// freed without a deep recursion of deinitializers) and lists only its plain operations.
    public final override var dependencies: [Operation] {
        var seen = Set<ObjectIdentifier>()
        let procedures = lock.withLock { state.dependencies }.filter {
            seen.insert(ObjectIdentifier($0)).inserted
        }
        return procedures + super.dependencies
    }

    // MARK: - Observers

    /// Attaches `observer`; it receives every later event of this procedure.
    ///
    /// An observer added after the procedure finished receives `didFinish` once: at once, or,
    /// if the procedure is still handling its last events on another thread, right after them.
    public final func addObserver(_ observer: any ProcedureObserver) {
        let late = lock.withLock { () -> Bool in
            if state.phase == .finished { return true }
            state.observers.append(observer)
            return false
        }
        // A closure, not an event case of its own: an existential payload would make every
        // event an address-only value, copied through the runtime's value witnesses.
        if late { send(.perform { [self] in observer.didFinish(self, errors: errors) }) }
    }

    /// The observers, copied under the lock so they can be called without it.
    var observers: [any ProcedureObserver] { lock.withLock { state.observers } }

    /// Plain `Operation.main()` is not used: procedures run ``execute()``.
    public final override func main() {}
}
