import Foundation

// What each stage of a procedure's life carries: exactly what is valid in it.
extension ProcedureLifecycle {
    enum Stage: ~Copyable {
        /// Created. `gated`: it has conditions or exclusivity categories.
        case initial(Initial)
        /// Claimed by an owner (or started by hand), waiting for dependencies, then its gate.
        case waiting(Waiting)
        /// Nothing holds it back: handed to the owner's scheduler, or about to start.
        case ready(Ready)
        /// Started (`executing` once `execute()` was called).
        case running(Running)
        /// The finish event is being handled (will-finish hooks run now).
        case finishing(Finishing)
        case finished(Finished)
    }

    /// What a procedure carries until it begins finishing: its cancel and its finish request.
    struct Fate: ~Copyable {
        var cancellation = CancellationPhase.none
        /// Errors it was cancelled with.
        var errors: [any Error] = []
        /// Set by the first accepted `finish`; its presence means "began finishing".
        var finishRequest: [any Error]?
    }

    struct Initial: ~Copyable {
        /// It has conditions or exclusivity categories.
        var gated = false
        var fate = Fate()
    }

    struct Ready: ~Copyable {
        var owner: (any ProcedureOwner)?
        var fate: Fate
    }

    struct Finished: ~Copyable {
        var cancellation: CancellationPhase
        var errors: [any Error]
    }

    struct Waiting: ~Copyable {
        /// The queue or group that owns it (nil: started by hand or by a plain `OperationQueue`).
        var owner: (any ProcedureOwner)?
        /// Unfinished dependencies, plus one while the claim registers with them.
        var unfinished: Int
        var gate: GateStage
        var fate: Fate
    }

    /// The slot of its owner's scheduler that a running procedure holds.
    enum Slot: ~Copyable {
        /// It holds none (started without a scheduler).
        case notHeld
        /// It holds one, given back when it finishes.
        case held
        /// Given back for a wait during which it runs nothing (see ``releaseSlot()``).
        case released
        /// Given back, then asked for again: run `onGranted` once the scheduler grants one.
        case reacquiring(onGranted: @Sendable () -> Void)
    }

    struct Running: ~Copyable {
        var owner: (any ProcedureOwner)?
        var slot: Slot
        var executing = false
        var fate: Fate
    }

    struct Finishing: ~Copyable {
        var owner: (any ProcedureOwner)?
        /// It holds a slot of its owner's scheduler, given back once it has finished.
        var holdsSlot: Bool
        var cancellation: CancellationPhase
        /// Its cancel errors, then its finish errors.
        var errors: [any Error]
    }
}
