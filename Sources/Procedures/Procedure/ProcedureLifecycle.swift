import Foundation

/// What the procedure does once an event of its lifecycle changed its readiness.
enum ReadyAction {
    /// Ask its owner's scheduler for a slot; the scheduler runs it when one is free.
    case schedule(ProcedureScheduler)
    /// It has no owner (started by hand, or by a plain `OperationQueue`): start it.
    case start
    /// Dependencies finished but conditions or exclusivity still hold it back: check them
    /// (see `ConditionGate`).
    case checkConditions
    /// It still waits (for dependencies, or for the gate being checked): nothing to do.
    case keepWaiting
    /// The event changes nothing: it no longer waits (a cancel made it ready early).
    case notWaiting
}

/// A procedure's lifecycle: a value-type state machine whose stages carry everything that is
/// valid in them (owner, cancellation, errors, a requested finish, the slot it holds), so no
/// other combination can be built. Every transition is a `mutating` method that returns what
/// the caller must do once it has let go of the procedure's lock; an event that does not fit
/// the stage is either answered explicitly (`.notWaiting`, `.duplicate`, …) or is a
/// `preconditionFailure` naming what went wrong. It can be driven and tested without threads.
///
/// Noncopyable, stages and payloads too: a transition then moves the payload (owner, errors,
/// a slot's closure) from one stage to the next in place, with no reference counting.
struct ProcedureLifecycle: ~Copyable {
    private(set) var stage = Stage.initial(Initial())
}

// MARK: - Transitions

// Each transition takes the stage out (`consume`), so that its payload moves into the next
// stage instead of being copied, and puts a stage back on every path. A reference-counted
// field read from a payload is a copy, so the hot transitions `exchange` it out instead. Those
// every procedure goes through are inlined into the critical sections that call them.
extension ProcedureLifecycle {
    /// Conditions or categories were added: only while initial. False (too late) otherwise.
    mutating func addGate() -> Bool {
        let current = (consume self).stage
        switch consume current {
        case .initial(var initial):
            initial.gated = true
            self = Self(stage: .initial(initial))
            return true
        case let other:
            self = Self(stage: other)
            return false
        }
    }

    enum ClaimOutcome {
        case claimed
        case refused(Procedure.ClaimResult)
    }

    /// Takes the procedure out of `initial` for `owner` (nil: started by hand or by a plain
    /// `OperationQueue`), waiting for `dependencies` plus one count that holds it while the
    /// claim registers with them (given back by ``dependenciesFinished(_:)``).
    @inline(__always) mutating func claim(owner: (any ProcedureOwner)?, dependencies: Int) -> ClaimOutcome {
        let current = (consume self).stage
        switch consume current {
        case .initial(let initial):
            self = Self(stage: .waiting(Waiting(owner: owner, unfinished: dependencies + 1, fate: initial.fate, gate: initial.gated ? .closed : .open)))
            return .claimed
        case let other:
            self = Self(stage: other)
            if phase == .finished { return .refused(.finished) }
            guard let current = self.owner else { return .refused(.started) }
            return .refused(current === owner ? .alreadyInThisQueue : .inAnotherQueue)
        }
    }

    /// One more dependency to wait for (a plain operation found unfinished during the claim).
    /// False if it no longer waits (a cancel made it ready meanwhile).
    mutating func dependencyAdded() -> Bool {
        let current = (consume self).stage
        switch consume current {
        case .waiting(var waiting):
            waiting.unfinished += 1
            self = Self(stage: .waiting(waiting))
            return true
        case let other:
            self = Self(stage: other)
            return false
        }
    }

    /// `count` dependencies finished (or the claim's own count was given back).
    @inline(__always) mutating func dependenciesFinished(_ count: Int = 1) -> ReadyAction {
        let current = (consume self).stage
        switch consume current {
        case .waiting(var waiting):
            waiting.unfinished -= count
            var action = ReadyAction.keepWaiting
            self = Self(stage: Self.readiness(of: waiting, &action))
            return action
        case let other:
            self = Self(stage: other)
            return .notWaiting
        }
    }

    /// The conditions were satisfied and the categories are held.
    mutating func gateOpened() -> ReadyAction {
        let current = (consume self).stage
        switch consume current {
        case .waiting(var waiting):
            waiting.gate = .open
            var action = ReadyAction.keepWaiting
            self = Self(stage: Self.readiness(of: waiting, &action))
            return action
        case let other:
            self = Self(stage: other)
            return .notWaiting
        }
    }

    /// The stage `waiting` leads to: itself, or the stage it moves on to if nothing holds it
    /// back; `action` says what to do.
    @inline(__always) private static func readiness(of waiting: consuming Waiting, _ action: inout ReadyAction) -> Stage {
        // A cancelled procedure waits for nothing: it will not execute anyway.
        let cancelled = waiting.fate.cancellation == .cancelled
        guard waiting.unfinished == 0 || cancelled else {
            action = .keepWaiting
            return .waiting(waiting)
        }
        if waiting.gate != .open && !cancelled {
            guard waiting.gate == .closed else {
                action = .keepWaiting
                return .waiting(waiting)
            }
            waiting.gate = .checking
            action = .checkConditions
            return .waiting(waiting)
        }
        let ready = Ready(owner: exchange(&waiting.owner, with: nil), fate: waiting.fate)
        // Asked in place: a copy of the owner would move its reference count between cores.
        if let scheduler = ready.owner?.scheduler { action = .schedule(scheduler) } else { action = .start }
        return .ready(ready)
    }

    // MARK: Cancelling and finishing requests

    enum CancelDecision { case ignore, post }

    /// Accepts the first cancel before the procedure begins finishing.
    @inline(__always) mutating func requestCancel(errors: [any Error]) -> CancelDecision {
        func accept(_ fate: inout Fate) -> CancelDecision {
            guard fate.cancellation == .none, fate.finishRequest == nil else { return .ignore }
            fate.cancellation = .requested
            fate.errors.append(contentsOf: errors)
            return .post
        }
        let current = (consume self).stage
        switch consume current {
        case .initial(var initial):
            let decision = accept(&initial.fate)
            self = Self(stage: .initial(initial))
            return decision
        case .waiting(var waiting):
            let decision = accept(&waiting.fate)
            self = Self(stage: .waiting(waiting))
            return decision
        case .ready(var ready):
            let decision = accept(&ready.fate)
            self = Self(stage: .ready(ready))
            return decision
        case .running(var running):
            let decision = accept(&running.fate)
            self = Self(stage: .running(running))
            return decision
        case let other:
            self = Self(stage: other)
            return .ignore
        }
    }

    /// The cancel event was handled: a waiting procedure no longer waits for anything.
    @inline(__always) mutating func cancelHandled() -> ReadyAction {
        let current = (consume self).stage
        switch consume current {
        case .initial(var initial):
            initial.fate.cancellation = .cancelled
            self = Self(stage: .initial(initial))
            return .notWaiting
        case .waiting(var waiting):
            waiting.fate.cancellation = .cancelled
            var action = ReadyAction.keepWaiting
            self = Self(stage: Self.readiness(of: waiting, &action))
            return action
        case .ready(var ready):
            ready.fate.cancellation = .cancelled
            self = Self(stage: .ready(ready))
            return .notWaiting
        case .running(var running):
            running.fate.cancellation = .cancelled
            self = Self(stage: .running(running))
            return .notWaiting
        case let other:
            self = Self(stage: other)
            // A cancel is accepted only before the finish is requested, and events are handled
            // in order: its event is always handled before the finish event.
            preconditionFailure("internal error: a procedure handled its cancel event in phase \(phase)")
        }
    }

    enum FinishDecision {
        /// Already finishing or finished: a second finish.
        case duplicate
        /// Not started yet: recorded, applied when the procedure starts.
        case deferred
        /// Queue the finish event.
        case post
    }

    @inline(__always) mutating func requestFinish(errors: [any Error]) -> FinishDecision {
        func record(_ fate: inout Fate) -> Bool {
            guard fate.finishRequest == nil else { return false }
            fate.finishRequest = errors
            return true
        }
        let current = (consume self).stage
        switch consume current {
        case .initial(var initial):
            let recorded = record(&initial.fate)
            self = Self(stage: .initial(initial))
            return recorded ? .deferred : .duplicate
        case .waiting(var waiting):
            let recorded = record(&waiting.fate)
            self = Self(stage: .waiting(waiting))
            return recorded ? .deferred : .duplicate
        case .ready(var ready):
            let recorded = record(&ready.fate)
            self = Self(stage: .ready(ready))
            return recorded ? .deferred : .duplicate
        case .running(var running):
            let recorded = record(&running.fate)
            self = Self(stage: .running(running))
            return recorded ? .post : .duplicate
        case let other:
            self = Self(stage: other)
            return .duplicate
        }
    }

    // MARK: Slots, starting and executing

    enum SlotGrant {
        /// Ready: it starts, with this owner.
        case start(owner: any ProcedureOwner)
        /// Running, it asked for its slot again: run this.
        case resume(@Sendable () -> Void)
        /// It finished while it waited for the slot: give the slot straight back.
        case unwanted
    }

    /// Its owner's scheduler gave it a slot: it starts, or, if it gave its slot back to wait
    /// and asked again, resumes.
    @inline(__always) mutating func slotGranted() -> SlotGrant {
        let current = (consume self).stage
        switch consume current {
        case .ready(var ready):
            guard let owner = exchange(&ready.owner, with: nil) else {
                preconditionFailure("internal error: a procedure without an owner was given a slot")
            }
            self = Self(stage: .running(Running(owner: owner, slot: .held, fate: ready.fate)))
            return .start(owner: owner)
        case .running(var running):
            var slot = Slot.held
            swap(&slot, &running.slot)
            switch consume slot {
            case .reacquiring(let onGranted):
                self = Self(stage: .running(running))
                return .resume(onGranted)
            case let slot:
                running.slot = slot
                self = Self(stage: .running(running))
                preconditionFailure("internal error: a running procedure was given a slot it did not ask for")
            }
        case let other:
            self = Self(stage: other)
            guard phase >= .finishing else {
                preconditionFailure("internal error: a procedure was given a slot in phase \(phase)")
            }
            return .unwanted
        }
    }

    enum SlotRelease {
        /// Give the slot back to this scheduler (the procedure no longer holds it).
        case giveBack(ProcedureScheduler)
        /// Nothing to give back: it holds no slot (started by hand, already given back, or no
        /// longer running).
        case holdsNone
    }

    /// Gives back the slot a running procedure holds, for a wait during which it runs nothing
    /// of its own; finishing does not give it back a second time.
    mutating func releaseSlot() -> SlotRelease {
        let current = (consume self).stage
        switch consume current {
        case .running(var running):
            let holds: Bool
            switch running.slot {
            case .held: holds = true
            default: holds = false
            }
            guard holds, let scheduler = running.owner?.scheduler else {
                self = Self(stage: .running(running))
                return .holdsNone
            }
            running.slot = .released
            self = Self(stage: .running(running))
            return .giveBack(scheduler)
        case let other:
            self = Self(stage: other)
            return .holdsNone
        }
    }

    enum SlotRequest {
        /// Get in line at this scheduler; `onGranted` runs once it grants a slot.
        case wait(ProcedureScheduler)
        /// Already in line: `onGranted` runs with the earlier request's.
        case alreadyWaiting
        /// Nothing to wait for (it never gave a slot back, or no longer runs): run `onGranted`.
        case runNow
    }

    /// Asks again for the slot given back by ``releaseSlot()``.
    mutating func requestSlot(onGranted: @escaping @Sendable () -> Void) -> SlotRequest {
        let current = (consume self).stage
        switch consume current {
        case .running(var running):
            let request: SlotRequest
            var slot = Slot.notHeld
            swap(&slot, &running.slot)
            switch consume slot {
            case .released:
                guard let scheduler = running.owner?.scheduler else {
                    preconditionFailure("internal error: a procedure without an owner gave a slot back")
                }
                running.slot = .reacquiring(onGranted: onGranted)
                request = .wait(scheduler)
            case .reacquiring(let earlier):
                running.slot = .reacquiring(onGranted: {
                    earlier()
                    onGranted()
                })
                request = .alreadyWaiting
            case let slot:
                running.slot = slot
                request = .runNow
            }
            self = Self(stage: .running(running))
            return request
        case let other:
            self = Self(stage: other)
            return .runNow
        }
    }

    /// Started by hand (or by a plain `OperationQueue`) and now ready: it starts.
    mutating func startUnscheduled() {
        let current = (consume self).stage
        switch consume current {
        case .ready(let ready):
            precondition(ready.owner == nil, "internal error: a procedure with an owner started without a slot")
            self = Self(stage: .running(Running(owner: nil, slot: .notHeld, fate: ready.fate)))
        case let other:
            self = Self(stage: other)
            preconditionFailure("internal error: a procedure started by hand was not ready but \(phase)")
        }
    }

    enum ExecuteDecision {
        case execute(owner: (any ProcedureOwner)?)
        /// A finish was requested (and so queued) before the execute event was handled.
        case skip
        case cancelled
    }

    /// The execute event: calls `execute()` unless the procedure was finished or cancelled
    /// meanwhile.
    @inline(__always) mutating func beginExecuting() -> ExecuteDecision {
        let current = (consume self).stage
        switch consume current {
        case .running(var running):
            precondition(!running.executing, "internal error: a procedure handled its execute event twice")
            let decision: ExecuteDecision
            if running.fate.finishRequest != nil {
                decision = .skip
            } else if running.fate.cancellation == .cancelled {
                decision = .cancelled
            } else {
                running.executing = true
                decision = .execute(owner: running.owner)
            }
            self = Self(stage: .running(running))
            return decision
        case let other:
            self = Self(stage: other)
            // The execute event is queued only behind a cancel or finish.
            guard phase >= .finishing else {
                preconditionFailure("internal error: a procedure handled its execute event in phase \(phase)")
            }
            return .skip
        }
    }

    // MARK: Finishing

    enum FinishStep {
        /// It begins finishing, with every error, and tells this owner.
        case begin(errors: [any Error], owner: (any ProcedureOwner)?)
        /// It already began (a finish requested while its start event was handled, for a
        /// procedure finished before it started, queues a second finish event).
        case alreadyFinishing
    }

    /// The finish event.
    @inline(__always) mutating func beginFinishing() -> FinishStep {
        let current = (consume self).stage
        switch consume current {
        case .running(var running):
            var errors = exchange(&running.fate.errors, with: [])
            // Most procedures finish without errors: skip the append, which costs an
            // allocation check even for two empty arrays.
            if let finishErrors = exchange(&running.fate.finishRequest, with: nil), !finishErrors.isEmpty {
                if errors.isEmpty { errors = finishErrors } else { errors.append(contentsOf: finishErrors) }
            }
            let holdsSlot: Bool
            switch running.slot {
            case .held: holdsSlot = true
            default: holdsSlot = false
            }
            let owner = exchange(&running.owner, with: nil)
            self = Self(stage: .finishing(Finishing(owner: owner, errors: errors, cancellation: running.fate.cancellation, holdsSlot: holdsSlot)))
            return .begin(errors: errors, owner: owner)
        case let other:
            self = Self(stage: other)
            guard phase >= .finishing else {
                preconditionFailure("internal error: a procedure handled its finish event in phase \(phase), before it started")
            }
            return .alreadyFinishing
        }
    }

    /// `isFinished` becomes true and the owner is let go. Returns the scheduler whose slot
    /// to give back, if it held one, and whether it was cancelled.
    @inline(__always) mutating func finish() -> (slot: ProcedureScheduler?, cancelled: Bool) {
        let current = (consume self).stage
        switch consume current {
        case .finishing(var finishing):
            let slot = finishing.holdsSlot ? finishing.owner?.scheduler : nil
            let cancelled = finishing.cancellation == .cancelled
            let errors = exchange(&finishing.errors, with: [])
            self = Self(stage: .finished(Finished(errors: errors, cancellation: finishing.cancellation)))
            return (slot, cancelled)
        case let other:
            self = Self(stage: other)
            preconditionFailure("internal error: a procedure finished in phase \(phase), without beginning to finish")
        }
    }
}
