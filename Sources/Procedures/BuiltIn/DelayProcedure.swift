import Foundation
import ProceduresSupport

/// A procedure that finishes after a delay, or at a date, without occupying a thread.
///
/// It waits on a ``ProcedureClock``: ``SystemClock/shared`` (real time, one timer shared by
/// every wait) unless you pass another, such as `ProceduresTesting`'s `ManualClock` in tests.
/// A zero, negative or past delay finishes at once. Cancelling it removes its callback from
/// the clock and finishes it immediately. Make it a dependency to hold something back:
///
/// ```swift
/// let pause = DelayProcedure(by: 0.5)
/// retry.addDependency(pause)
/// queue.addOperations([pause, retry], waitUntilFinished: false)
/// ```
///
/// Its ``Procedure/progress`` counts the milliseconds waited, on its clock (read about a
/// hundred times over the wait, at most a hundred times a second, and only while someone
/// tracks it).
///
/// It is an ``InputProcedure`` of ``Delay``, so the delay can also come from another
/// procedure: `DelayProcedure().injectResult(from: backOff)`, or, from a number of seconds,
/// `DelayProcedure().injectResult(from: seconds) { .by($0) }`. One given no delay at all
/// fails with ``ProcedureError/missingInput(name:)``.
public final class DelayProcedure: Procedure, InputProcedure, ProgressUnitsSource, @unchecked Sendable {
    // @unchecked: `timer` is only touched from this procedure's callbacks (execute, did-cancel,
    // did-finish), which never overlap; `input` is written before execute() (by init, directly,
    // or by the injection's will-execute observer) and read by execute(); `wait` is guarded by
    // the procedure's own `lock` (one store, no other lock taken); `clock` is immutable.

    /// How long to wait.
    public enum Delay: Sendable, Equatable {
        /// An interval, in seconds, counted from when the procedure executes.
        case by(TimeInterval)
        /// A moment in wall-clock time. The seconds left until it are measured against the
        /// system's date when the procedure executes, and then waited for on the procedure's
        /// clock.
        case until(Date)
    }

    /// The delay this procedure waits for: the one it was made with, or given as its input.
    public var delay: Delay? { input }
    /// The delay, as an input: set it before the procedure executes, or inject it.
    public var input: Delay?
    /// The clock the delay is measured on.
    public let clock: any ProcedureClock
    private var timer: (any Cancelable)?
    /// When the wait began on the clock, and how long it is (for the progress and, as its
    /// deadline, for ``Procedure/waitingReason``).
    // Unchecked: only touched under the procedure's `lock`, which already excludes every other access.
    @exclusivity(unchecked) private var wait: (start: TimeInterval, seconds: TimeInterval)?

    /// Waits `interval` seconds of `clock` once executed. A NaN interval is reported to
    /// ``ProcedureMisuse`` and treated as zero; an infinite one lasts until cancelled.
    public convenience init(by interval: TimeInterval, clock: any ProcedureClock = SystemClock.shared) {
        self.init(.by(interval), clock: clock)
    }

    /// Waits until `date`; a date in the past finishes at once.
    public convenience init(until date: Date, clock: any ProcedureClock = SystemClock.shared) {
        self.init(.until(date), clock: clock)
    }

    /// Waits for the delay given as its ``input`` (set, or injected) on `clock`.
    public init(clock: any ProcedureClock = SystemClock.shared) {
        self.clock = clock
        super.init()
    }

    /// Waits for `delay` on `clock`.
    public init(_ delay: Delay, clock: any ProcedureClock = SystemClock.shared) {
        self.input = delay
        self.clock = clock
        super.init()
        switch delay {
        case .by(let interval):
            name = "Delay(by: \(DurationText.seconds(interval)))"
            if interval.isNaN {
                ProcedureMisuse.report(
                    .invalidDelay, "DelayProcedure(by: nan): the delay is not a number; it finishes at once.",
                    subject: self)
            }
        case .until(let date):
            name = "Delay(until: \(date))"
        }
    }

    /// Starts the timer, or finishes at once when there is nothing to wait for.
    public override func execute() {
        guard let delay = input else {
            finish(withError: ProcedureError.missingInput(name: displayName))
            return
        }
        let interval: TimeInterval  // the seconds left to wait, measured now
        switch delay {
        case .by(let seconds): interval = seconds
        case .until(let date): interval = date.timeIntervalSinceNow
        }
        guard interval > 0 else {  // also false for NaN
            finishAutomatically()
            return
        }
        let start = clock.now
        let deadline = start + interval
        lock.withLock { wait = (start, interval) }
        timer = clock.schedule(at: deadline) { [weak self] in self?.finishAutomatically() }
        progressSourceDidChange()
        pollProgress(every: progressPollInterval(interval), clock: clock)
    }

    /// Its progress counts milliseconds waited, on its clock, of the delay.
    package var progressUnits: ProgressUnits {
        guard let wait = lock.withLock({ wait }) else { return ProgressUnits(completed: 0, of: 0) }
        let total = Self.milliseconds(wait.seconds)
        return ProgressUnits(completed: min(total, Self.milliseconds(clock.now - wait.start)), of: total)
    }

    /// Tracking that begins during the wait polls from then on.
    package func progressTrackingBegan() {
        if let wait = lock.withLock({ wait }) { pollProgress(every: progressPollInterval(wait.seconds), clock: clock) }
    }

    /// A hundredth of the wait, between 10 ms and 1 s: about a hundred steps, and fewer than
    /// a hundred readings a second, however long the wait.
    private func progressPollInterval(_ seconds: TimeInterval) -> TimeInterval {
        min(1, max(0.01, seconds / 100))
    }

    private static func milliseconds(_ seconds: TimeInterval) -> Int64 {
        guard seconds.isFinite else { return seconds > 0 ? Int64.max : 0 }
        return Int64(max(0, seconds * 1000).rounded())
    }

    /// Removes the clock callback and finishes.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        timer?.cancel()
        // Racing the timer is expected: whichever finish comes second is ignored quietly.
        finishAutomatically()
    }

    /// Removes the clock callback (if it has not run).
    public override func procedureDidFinish(withErrors errors: [any Error]) {
        timer?.cancel()
        timer = nil
    }
}

extension DelayProcedure: ClockWaiting {
    var clockWait: (clock: any ProcedureClock, deadline: TimeInterval)? {
        lock.withLock { state.phase == .executing ? wait : nil }.map { (clock, $0.start + $0.seconds) }
    }
}
