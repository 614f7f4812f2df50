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
    // Fields are laid out in order: the references first and the bytes last keep every
    // payload, and so each procedure, as small as the fields it replaced.
    struct Fate: ~Copyable {
        /// Errors it was cancelled with.
        var errors: [any Error] = []
        /// Set by the first accepted `finish`; its presence means "began finishing".
        var finishRequest: [any Error]?
        var cancellation = CancellationPhase.none
    }

    struct Initial: ~Copyable {
        var fate = Fate()
        /// It has conditions or exclusivity categories.
        var gated = false
    }

    struct Ready: ~Copyable {
        var owner: (any ProcedureOwner)?
        var fate: Fate
    }

    struct Finished: ~Copyable {
        var errors: [any Error]
        var cancellation: CancellationPhase
    }

    struct Waiting: ~Copyable {
        /// The queue or group that owns it (nil: started by hand or by a plain `OperationQueue`).
        var owner: (any ProcedureOwner)?
        /// Unfinished dependencies, plus one while the claim registers with them.
        var unfinished: Int
        var fate: Fate
        var gate: GateStage
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
        var fate: Fate
        var executing = false
    }

    struct Finishing: ~Copyable {
        var owner: (any ProcedureOwner)?
        /// Its cancel errors, then its finish errors.
        var errors: [any Error]
        var cancellation: CancellationPhase
        /// It holds a slot of its owner's scheduler, given back once it has finished.
        var holdsSlot: Bool
    }
}
