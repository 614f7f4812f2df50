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
        lock.withLock { state.lifecycle.releaseSlot() }?.slotReleased()
    }

    /// Asks for the slot given back by ``releaseSlot()``: `onGranted` runs once the owner's
    /// scheduler gives one (on its thread), or right away if there is nothing to wait for.
    func reacquireSlot(then onGranted: @escaping @Sendable () -> Void) {
        switch lock.withLock({ state.lifecycle.requestSlot(onGranted: onGranted) }) {
        case .wait(let scheduler): scheduler.submit(self)
        case .alreadyWaiting: break
        case .none: onGranted()
        }
    }
}
