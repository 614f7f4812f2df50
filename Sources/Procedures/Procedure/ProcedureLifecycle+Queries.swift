import Foundation

// What the lifecycle answers, read under the procedure's lock: each reads the stage only.
extension ProcedureLifecycle {
    @inline(__always) var phase: ProcedurePhase {
        switch stage {
        case .initial: return .initial
        case .waiting: return .waiting
        case .ready: return .ready
        case .running(let running): return running.executing ? .executing : .started
        case .finishing: return .finishing
        case .finished: return .finished
        }
    }

    /// The queue or group that owns the procedure, from its claim until it has finished (nil
    /// for one started by hand or by a plain `OperationQueue`).
    @inline(__always) var owner: (any ProcedureOwner)? {
        switch stage {
        case .initial: return nil
        case .finished: return nil
        case .waiting(let waiting): return waiting.owner
        case .ready(let ready): return ready.owner
        case .running(let running): return running.owner
        case .finishing(let finishing): return finishing.owner
        }
    }

    /// True if its owner's scheduler may be suspended; asked of the owner in place, without
    /// copying it. Optional chaining on each stage's owner is what keeps it uncopied: binding
    /// the owner (`if let`, or `map` in a helper shared with ``owner``) retains it.
    @inline(__always) var ownerSchedulerMayBeSuspended: Bool {
        switch stage {
        case .initial: return false
        case .finished: return false
        case .waiting(let waiting): return waiting.owner?.schedulerMayBeSuspended ?? false
        case .ready(let ready): return ready.owner?.schedulerMayBeSuspended ?? false
        case .running(let running): return running.owner?.schedulerMayBeSuspended ?? false
        case .finishing(let finishing): return finishing.owner?.schedulerMayBeSuspended ?? false
        }
    }

    @inline(__always) var cancellation: CancellationPhase {
        switch stage {
        case .initial(let initial): return initial.fate.cancellation
        case .ready(let ready): return ready.fate.cancellation
        case .waiting(let waiting): return waiting.fate.cancellation
        case .running(let running): return running.fate.cancellation
        case .finishing(let finishing): return finishing.cancellation
        case .finished(let finished): return finished.cancellation
        }
    }

    /// Errors it was cancelled with, then (once it began finishing) those it finished with.
    var errors: [any Error] {
        switch stage {
        case .initial(let initial): return initial.fate.errors
        case .ready(let ready): return ready.fate.errors
        case .waiting(let waiting): return waiting.fate.errors
        case .running(let running): return running.fate.errors
        case .finishing(let finishing): return finishing.errors
        case .finished(let finished): return finished.errors
        }
    }

    @inline(__always) var hasBegunFinishing: Bool {
        switch stage {
        case .initial(let initial): return initial.fate.finishRequest != nil
        case .ready(let ready): return ready.fate.finishRequest != nil
        case .waiting(let waiting): return waiting.fate.finishRequest != nil
        case .running(let running): return running.fate.finishRequest != nil
        case .finishing: return true
        case .finished: return true
        }
    }

    /// True while its conditions or categories are being checked.
    var isCheckingGate: Bool {
        switch stage {
        case .waiting(let waiting): return waiting.gate == .checking
        default: return false
        }
    }

    /// True while, running, it has given its slot back and asked for one again.
    var isWaitingForSlotAgain: Bool {
        switch stage {
        case .running(let running):
            switch running.slot {
            case .reacquiring: return true
            default: return false
            }
        default: return false
        }
    }

    /// True while it may still produce operations onto its owner.
    var canProduce: Bool {
        switch stage {
        case .running(let running): return running.owner != nil && running.fate.finishRequest == nil
        default: return false
        }
    }

    /// What the start event does: run, finish at once (finished before it started), let a
    /// cancelled procedure finish, or nothing (it finished before a start sent late, after
    /// it took its categories back, was handled).
    @inline(__always) var startDecision: StartDecision {
        switch stage {
        case .running(let running):
            if running.fate.finishRequest != nil { return .finish }
            return running.fate.cancellation == .cancelled ? .cancelled : .run
        case .finishing: return .alreadyFinishing
        case .finished: return .alreadyFinishing
        default:
            preconditionFailure("internal error: a procedure handled its start event in phase \(phase)")
        }
    }

    enum StartDecision { case run, finish, cancelled, alreadyFinishing }
}
