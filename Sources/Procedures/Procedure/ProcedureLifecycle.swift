import Foundation

/// Where a procedure is in its life, as one comparable value for queries (`isExecuting`,
/// `isFinished`, summaries). Only ``ProcedureLifecycle`` decides it.
enum ProcedurePhase: UInt8, Comparable, CustomStringConvertible {
    case initial, waiting, ready, started, executing, finishing, finished

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String {
        switch self {
        case .initial: return "initial"
        case .waiting: return "waiting"
        case .ready: return "ready"
        case .started: return "started"
        case .executing: return "executing"
        case .finishing: return "finishing"
        case .finished: return "finished"
        }
    }
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
    /// Ask its owner's scheduler for a slot; the scheduler runs it when one is free.
    case schedule(ProcedureScheduler)
    /// `start()` was already called (by hand, or by a plain `OperationQueue`): run it.
    case start
    /// Dependencies finished but conditions or exclusivity still hold it back: check them
    /// (see `ConditionGate`). Returned by a transition, never stored.
    case checkConditions
}

/// A procedure's lifecycle: a value-type state machine. Each stage carries what is valid in
/// it (how many dependencies it still waits for and where its gate is, whether it holds a
/// slot, whether it executes); beside the stage, the owner (from the claim until it has
/// finished), the cancellation, the errors and the first finish. Every transition is a
/// `mutating` method that returns what the caller must do once it has let go of the
/// procedure's lock. Nothing else writes a procedure's phase, its
/// cancellation or its finish, so the machine can be driven and tested without threads.
struct ProcedureLifecycle {
    // The stages hold no references, so that a transition copies them without reference
    // counting: the owner (and so its scheduler, whose slot a running procedure holds) is
    // kept once, in `owner`.
    enum Stage {
        /// Created. `gated`: it has conditions or exclusivity categories.
        case initial(gated: Bool)
        /// Claimed by an owner (or started by hand), waiting for dependencies, then its gate.
        case waiting(Waiting)
        /// Nothing holds it back: handed to the owner's scheduler, or about to start.
        case ready
        /// Started (`executing` once `execute()` was called).
        case running(Running)
        /// The finish event is being handled (will-finish hooks run now).
        case finishing(Running)
        case finished
    }

    struct Waiting {
        /// Unfinished dependencies, plus one while the claim registers with them.
        var unfinished: Int
        var gate: GateStage
    }

    struct Running {
        /// It holds a slot of its owner's scheduler, given back when it finishes.
        var holdsSlot: Bool
        var executing = false
    }

    /// A slot given back while running (to the owner's scheduler, which is asked again) and,
    /// once asked, what to run when it grants one. A class, so that it costs the lifecycle one
    /// word: the lifecycle is read on every procedure's hot path, and only retries use this.
    final class ReleasedSlot {
        var onGranted: (@Sendable () -> Void)?
    }

    private(set) var stage = Stage.initial(gated: false)
    /// The queue or group that owns the procedure, from its claim until it has finished (nil
    /// for one started by hand or by a plain `OperationQueue`).
    private(set) var cancellation = CancellationPhase.none
    /// Errors it was cancelled with, then those it finished with.
    private(set) var errors: [any Error] = []
    /// Set by the first accepted `finish`; its presence means "began finishing".
    private(set) var finishErrors: [any Error]?
    /// Set while the running procedure has given its slot back to wait (see `releaseSlot`).
    private var released: ReleasedSlot?

    // MARK: - Queries

    var phase: ProcedurePhase {
        switch stage {
        case .initial: return .initial
        case .waiting: return .waiting
        case .ready: return .ready
        case .running(let running): return running.executing ? .executing : .started
        case .finishing: return .finishing
        case .finished: return .finished
        }
    }

    private(set) var owner: (any ProcedureOwner)?

    var hasBegunFinishing: Bool { finishErrors != nil || phase >= .finishing }

    /// True while its conditions or categories are being checked.
    var isCheckingGate: Bool {
        if case .waiting(let waiting) = stage { return waiting.gate == .checking }
        return false
    }

    /// True while, running, it has given its slot back and asked for one again.
    var isWaitingForSlotAgain: Bool { released?.onGranted != nil }

    /// True while it may still produce operations onto its owner.
    var canProduce: Bool {
        guard case .running = stage, owner != nil else { return false }
        return !hasBegunFinishing
    }

    // MARK: - Setting up

    /// Conditions or categories were added: only while initial.
    mutating func addGate() -> Bool {
        guard case .initial = stage else { return false }
        stage = .initial(gated: true)
        return true
    }

    // MARK: - Claim and readiness

    enum ClaimOutcome {
        case claimed
        case refused(Procedure.ClaimResult)
    }

    /// Takes the procedure out of `initial` for `owner` (nil: started by hand or by a plain
    /// `OperationQueue`), waiting for `dependencies` plus one count that holds it while the
    /// claim registers with them (given back by ``dependenciesFinished(_:)``).
    mutating func claim(owner: (any ProcedureOwner)?, dependencies: Int) -> ClaimOutcome {
        guard case .initial(let gated) = stage else {
            if case .finished = stage { return .refused(.finished) }
            guard let current = self.owner else { return .refused(.started) }
            return .refused(current === owner ? .alreadyInThisQueue : .inAnotherQueue)
        }
        self.owner = owner
        stage = .waiting(Waiting(unfinished: dependencies + 1, gate: gated ? .closed : .open))
        return .claimed
    }

    /// One more dependency to wait for (a plain operation found unfinished during the claim).
    mutating func dependencyAdded() {
        guard case .waiting(var waiting) = stage else { return }
        waiting.unfinished += 1
        stage = .waiting(waiting)
    }

    /// `count` dependencies finished (or the claim's own count was given back).
    mutating func dependenciesFinished(_ count: Int = 1) -> ReadyAction? {
        guard case .waiting(var waiting) = stage else { return nil }
        waiting.unfinished -= count
        stage = .waiting(waiting)
        return becomeReadyIfPossible()
    }

    /// The conditions were satisfied and the categories are held.
    mutating func gateOpened() -> ReadyAction? {
        guard case .waiting(var waiting) = stage else { return nil }
        waiting.gate = .open
        stage = .waiting(waiting)
        return becomeReadyIfPossible()
    }

    /// Marks the procedure ready if it is waiting and nothing holds it back any more.
    private mutating func becomeReadyIfPossible() -> ReadyAction? {
        guard case .waiting(var waiting) = stage, waiting.unfinished == 0 || cancellation == .cancelled else {
            return nil
        }
        // A cancelled procedure skips its conditions: it will not execute anyway.
        if waiting.gate != .open && cancellation != .cancelled {
            guard waiting.gate == .closed else { return nil }
            waiting.gate = .checking
            stage = .waiting(waiting)
            return .checkConditions
        }
        stage = .ready
        return owner.map { .schedule($0.scheduler) } ?? .start
    }

    // MARK: - Cancelling and finishing requests

    enum CancelDecision { case ignore, post }

    /// Accepts the first cancel before the procedure begins finishing.
    mutating func requestCancel(errors: [any Error]) -> CancelDecision {
        guard cancellation == .none, !hasBegunFinishing else { return .ignore }
        cancellation = .requested
        self.errors.append(contentsOf: errors)
        return .post
    }

    /// The cancel event was handled: a waiting procedure no longer waits for anything.
    mutating func cancelHandled() -> ReadyAction? {
        cancellation = .cancelled
        return becomeReadyIfPossible()
    }

    enum FinishDecision {
        /// Already finishing or finished: a second finish.
        case duplicate
        /// Not started yet: recorded, applied when the procedure starts.
        case deferred
        /// Queue the finish event.
        case post
    }

    mutating func requestFinish(errors: [any Error]) -> FinishDecision {
        if hasBegunFinishing { return .duplicate }
        finishErrors = errors
        return phase >= .started ? .post : .deferred
    }

    // MARK: - Starting and executing

    /// Its owner's scheduler gave it a slot: it starts. Returns its owner.
    mutating func startScheduled() -> (any ProcedureOwner)? {
        guard case .ready = stage, owner != nil else {
            preconditionFailure("internal error: a procedure was scheduled in phase \(phase)")
        }
        stage = .running(Running(holdsSlot: true))
        return owner
    }

    enum SlotGrant {
        /// Ready: it starts, with this owner.
        case start(owner: (any ProcedureOwner)?)
        /// Running, it asked for its slot again: run this.
        case resume(@Sendable () -> Void)
        /// It finished while it waited for the slot: give the slot straight back.
        case unwanted
    }

    /// Its owner's scheduler gave it a slot: it starts, or, if it gave its slot back to wait
    /// and asked again, resumes.
    mutating func slotGranted() -> SlotGrant {
        switch stage {
        case .ready:
            return .start(owner: startScheduled())
        case .running(var running):
            guard let onGranted = released?.onGranted else { break }
            running.holdsSlot = true
            released = nil
            stage = .running(running)
            return .resume(onGranted)
        case .finishing, .finished:
            return .unwanted
        case .initial, .waiting:
            break
        }
        preconditionFailure("internal error: a procedure was scheduled in phase \(phase)")
    }

    /// Gives back the slot a running procedure holds, for a wait during which it runs nothing
    /// of its own. Returns the scheduler to give it back to (nil: it holds none).
    mutating func releaseSlot() -> ProcedureScheduler? {
        guard case .running(var running) = stage, running.holdsSlot, let slot = owner?.scheduler else { return nil }
        running.holdsSlot = false  // so that finishing does not give it back a second time
        released = ReleasedSlot()
        stage = .running(running)
        return slot
    }

    enum SlotRequest {
        /// Get in line at this scheduler; `onGranted` runs once it grants a slot.
        case wait(ProcedureScheduler)
        /// Already in line: `onGranted` runs with the earlier request's.
        case alreadyWaiting
        /// Nothing to wait for (it never gave a slot back, or is finishing): run `onGranted`.
        case none
    }

    /// Asks again for the slot given back by ``releaseSlot()``.
    mutating func requestSlot(onGranted: @escaping @Sendable () -> Void) -> SlotRequest {
        guard case .running = stage, let released, let scheduler = owner?.scheduler else { return .none }
        guard let earlier = released.onGranted else {
            released.onGranted = onGranted
            return .wait(scheduler)
        }
        released.onGranted = {
            earlier()
            onGranted()
        }
        return .alreadyWaiting
    }

    /// Started by hand (or by a plain `OperationQueue`) and now ready: it starts. False if it
    /// was not ready.
    mutating func startUnscheduled() -> Bool {
        guard case .ready = stage else { return false }
        stage = .running(Running(holdsSlot: false))
        return true
    }

    enum StartDecision { case run, finish, cancelled }

    /// What the start event does: run, finish at once (finished before it started), or let a
    /// cancelled procedure finish.
    var startDecision: StartDecision {
        if finishErrors != nil { return .finish }
        return cancellation == .cancelled ? .cancelled : .run
    }

    enum ExecuteDecision {
        case execute(owner: (any ProcedureOwner)?)
        case skip
        case cancelled
    }

    /// The execute event: calls `execute()` unless the procedure was finished or cancelled
    /// meanwhile.
    mutating func beginExecuting() -> ExecuteDecision {
        guard case .running(var running) = stage, !running.executing, finishErrors == nil else { return .skip }
        if cancellation == .cancelled { return .cancelled }
        running.executing = true
        stage = .running(running)
        return .execute(owner: owner)
    }

    // MARK: - Finishing

    /// The finish event: returns every error and the owner, or nil if it already began (a
    /// finish racing the start of a procedure finished before it started queues two).
    mutating func beginFinishing() -> (errors: [any Error], owner: (any ProcedureOwner)?)? {
        let running: Running
        switch stage {
        case .running(let current): running = current
        case .initial, .waiting, .ready: running = Running(holdsSlot: false)
        case .finishing, .finished: return nil
        }
        stage = .finishing(running)
        // Most procedures finish without errors: skip the append, which costs an allocation
        // check even for two empty arrays.
        if let finishErrors, !finishErrors.isEmpty {
            if errors.isEmpty { errors = finishErrors } else { errors.append(contentsOf: finishErrors) }
        }
        return (errors, owner)
    }

    /// `isFinished` becomes true and the owner is let go. Returns the scheduler whose slot
    /// to give back, if it held one, and whether it was cancelled.
    mutating func finish() -> (slot: ProcedureScheduler?, cancelled: Bool) {
        guard case .finishing(let running) = stage else { return (nil, cancellation == .cancelled) }
        stage = .finished
        let slot = running.holdsSlot ? owner?.scheduler : nil
        owner = nil
        return (slot, cancellation == .cancelled)
    }
}
