import Foundation

// A running procedure that waits for time to pass (a retry's back-off) runs nothing of its
// own meanwhile: it gives its slot of its owner's width back, so that other work runs, and
// asks for one again when the wait is over, in line (priority, then FIFO) with the ready
// procedures. Nothing blocks: the slot is handed over by the scheduler's drain loop.
extension Procedure {
    /// Gives back the slot this running procedure holds on its owner's scheduler, for the
    /// next procedure in line. Nothing if it holds none (started by hand, say). It finishes
    /// without giving it back again.
    func releaseSlot() {
        switch lock.withLock({ state.lifecycle.releaseSlot() }) {
        case .giveBack(let scheduler): scheduler.slotReleased()
        case .holdsNone: break
        }
    }

    /// Asks for the slot given back by ``releaseSlot()``: `onGranted` runs once the owner's
    /// scheduler gives one (on its thread), or right away if there is nothing to wait for.
    func reacquireSlot(then onGranted: @escaping @Sendable () -> Void) {
        switch lock.withLock({ state.lifecycle.requestSlot(onGranted: onGranted) }) {
        case .wait(let scheduler): scheduler.submit(self)
        case .alreadyWaiting: break
        case .runNow: onGranted()
        }
    }
}

/// A child of a ``RepeatProcedure`` between its wait and its next operation: it asks for
/// the repeat's slot again and finishes once the repeat holds one, so the next operation
/// runs within the width of the repeat's owner.
final class SlotReacquisition: Procedure, @unchecked Sendable {
    // @unchecked: `holder` is immutable (weak: the holder owns this child).
    private weak var holder: Procedure?

    init(for holder: Procedure) {
        self.holder = holder
        super.init()
    }

    override func execute() {
        guard let holder else { return finish() }
        holder.reacquireSlot { [self] in finishAutomatically() }
    }

    /// Cancelled with the repeat: it finishes without waiting for the slot (a slot granted
    /// later to a finished repeat goes straight back).
    override func procedureDidCancel(withErrors errors: [any Error]) {
        finishAutomatically()
    }
}
