import Foundation
import ProceduresSupport

/// One observer of a procedure's progress: its handler, and where its deliveries are.
///
/// Deliveries are coalesced: at most one is scheduled or running at a time, each carries the
/// latest state, and two start at least `minimumInterval` apart on `clock`. A million updates
/// in a burst therefore make a handful of calls, the last of which shows the last update.
/// Returned to the caller as the `Cancelable` that stops it.
final class ProgressObservation: Cancelable, @unchecked Sendable {
    // @unchecked: `phase`, `delivered`, `lastDelivery` and `ended` are read and written only
    // under the tracker's lock; the other properties are immutable.
    enum Phase {
        /// Nothing scheduled: the next change schedules a delivery.
        case idle
        /// A delivery is scheduled (it will read the state when it runs).
        case scheduled
        /// The handler is running; a change meanwhile schedules another delivery after it.
        case delivering
    }

    /// Weak: the tracker holds its observations, and lets go of one when it ends. Set once,
    /// by `init`.
    private weak var tracker: ProgressTracker?
    let minimumInterval: TimeInterval
    let clock: any ProcedureClock
    let handler: @Sendable (ProgressUpdate) -> Void
    /// Called once after the final update was delivered (the procedure finished).
    let onEnd: (@Sendable () -> Void)?

    var phase = Phase.idle
    /// The tracker's version the last delivery showed.
    var delivered: UInt64 = 0
    /// When the last delivery began, on `clock`.
    var lastDelivery = -Double.infinity
    /// Set once cancelled or once the final update was delivered: nothing more is delivered.
    var ended = false

    init(
        tracker: ProgressTracker, minimumInterval: TimeInterval, clock: any ProcedureClock,
        onEnd: (@Sendable () -> Void)?, handler: @escaping @Sendable (ProgressUpdate) -> Void
    ) {
        self.tracker = tracker
        self.minimumInterval = minimumInterval.isNaN ? 0 : max(0, minimumInterval)
        self.clock = clock
        self.onEnd = onEnd
        self.handler = handler
    }

    /// Stops the deliveries; one already running finishes.
    func cancel() {
        tracker?.remove(self)
    }

    /// Runs a delivery after the minimum interval since the last one began (at once if it
    /// has passed), on a Dispatch thread: never on the clock's own thread, where a slow
    /// handler would hold up every other timer.
    func schedule(after lastDelivery: TimeInterval) {
        let deliver: @Sendable () -> Void = { [self] in tracker?.deliver(to: self) }
        let due = lastDelivery + minimumInterval
        if due <= clock.now {
            DispatchQueue.global().async(execute: deliver)
        } else {
            _ = clock.schedule(at: due) { DispatchQueue.global().async(execute: deliver) }
        }
    }
}
