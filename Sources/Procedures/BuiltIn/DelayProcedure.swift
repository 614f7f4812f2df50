import Foundation

/// A procedure that finishes after a delay, or at a date, without occupying a thread.
///
/// It runs a `DispatchSourceTimer`. A zero, negative or past delay finishes at once. Cancelling
/// it stops the timer and finishes it immediately. Make it a dependency to hold something back:
///
/// ```swift
/// let pause = DelayProcedure(by: 0.5)
/// retry.addDependency(pause)
/// queue.addOperations([pause, retry], waitUntilFinished: false)
/// ```
public final class DelayProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `timer` is only touched from this procedure's callbacks (execute, did-cancel,
    // did-finish), which never overlap.

    /// How long to wait.
    public enum Delay: Sendable, Equatable {
        /// An interval, in seconds, counted from when the procedure executes.
        case by(TimeInterval)
        /// A moment in time.
        case until(Date)
    }

    /// The delay this procedure waits for.
    public let delay: Delay
    private let leeway: DispatchTimeInterval
    private var timer: DispatchSourceTimer?

    /// Waits `interval` seconds once executed. A NaN interval is reported to
    /// ``ProcedureMisuse`` and treated as zero.
    public convenience init(by interval: TimeInterval, leeway: DispatchTimeInterval = .milliseconds(1)) {
        self.init(.by(interval), leeway: leeway)
    }

    /// Waits until `date`; a date in the past finishes at once.
    public convenience init(until date: Date, leeway: DispatchTimeInterval = .milliseconds(1)) {
        self.init(.until(date), leeway: leeway)
    }

    /// Waits for `delay`.
    public init(_ delay: Delay, leeway: DispatchTimeInterval = .milliseconds(1)) {
        self.delay = delay
        self.leeway = leeway
        super.init()
        switch delay {
        case .by(let interval):
            name = "Delay(by: \(interval) s)"
            if interval.isNaN {
                ProcedureMisuse.report(
                    .invalidDelay, "DelayProcedure(by: nan): the delay is not a number; it finishes at once.",
                    subject: self)
            }
        case .until(let date):
            name = "Delay(until: \(date))"
        }
    }

    /// The seconds left to wait, measured now.
    private var remaining: TimeInterval {
        switch delay {
        case .by(let interval): return interval
        case .until(let date): return date.timeIntervalSinceNow
        }
    }

    /// Starts the timer, or finishes at once when there is nothing to wait for.
    public override func execute() {
        let interval = remaining
        guard interval > 0 else {  // also false for NaN
            finishAutomatically()
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { [weak self] in self?.finishAutomatically() }
        timer.schedule(deadline: Self.deadline(after: interval), leeway: leeway)
        self.timer = timer
        timer.resume()
    }

    private static func deadline(after interval: TimeInterval) -> DispatchTime {
        // Beyond about 292 years DispatchTime overflows: treat it as "until cancelled".
        guard interval < 9_000_000_000 else { return .distantFuture }
        return .now() + interval
    }

    /// Stops the timer and finishes.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        timer?.cancel()
        // Racing the timer is expected: whichever finish comes second is ignored quietly.
        finishAutomatically()
    }

    /// Releases the timer.
    public override func procedureDidFinish(withErrors errors: [any Error]) {
        timer?.cancel()
        timer = nil
    }
}
