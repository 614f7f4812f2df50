import Foundation
import ProceduresFutures

/// The timeout of ``Procedure/timeout(after:clock:)``, kept by the procedure itself.
///
/// It behaves as a ``TimeoutObserver`` with the same interval: armed as the procedure begins
/// will-execute (before its will-execute observers), dropped as it begins finishing (before
/// its will-finish observers). Being part of the procedure rather than an observer, it costs
/// no observer list, no observer calls and no closure of its own: about a third of what an
/// observer's timeout costs.
///
/// A procedure keeps one; a second `timeout(after:)` adds a ``TimeoutObserver``, so that
/// every timeout asked for still holds.
final class ProcedureTimeout {
    // Not Sendable: it lives in the procedure's state, under the procedure's lock, and the
    // clock's callback captures the procedure, not this.
    let interval: TimeInterval
    let clock: any ProcedureClock
    /// The clock's handle while armed.
    var timer: (any Cancelable)?

    init(interval: TimeInterval, clock: any ProcedureClock) {
        self.interval = interval
        self.clock = clock
    }
}

extension Procedure {
    /// Cancels the procedure with ``ProcedureError/timedOut(after:)`` unless it finishes
    /// within `interval` seconds of starting to execute, as a ``TimeoutObserver`` would (time
    /// spent waiting for dependencies, conditions or a queue slot does not count). Call it
    /// before the procedure executes; on one that is already executing or finished it is
    /// reported as ``ProcedureMisuse/Kind/timeoutAddedAfterStart`` (the timeout could never
    /// start) and nothing is added.
    ///
    /// ```swift
    /// queue.addOperation(FetchProcedure(url: url).timeout(after: 10))
    /// ```
    ///
    /// The procedure keeps its first timeout itself, the cheapest way to have one; further
    /// calls add ``TimeoutObserver``s, and whichever deadline comes first cancels it. A zero or
    /// negative interval cancels it at will-execute, so `execute()` never runs; an infinite one
    /// never fires; a NaN one is reported as ``ProcedureMisuse/Kind/invalidDelay`` and ignored.
    @discardableResult
    public func timeout(after interval: TimeInterval, clock: any ProcedureClock = SystemClock.shared) -> Self {
        enum Outcome { case kept, observer, tooLate, notANumber }
        // One critical section: a timeout is asked for on most procedures of a program that
        // uses them, so this is as cheap as one lock.
        let outcome = lock.withLock { () -> Outcome in
            guard state.phase < .started else { return .tooLate }
            guard !interval.isNaN else { return .notANumber }
            guard state.timeout == nil else { return .observer }
            state.timeout = ProcedureTimeout(interval: interval, clock: clock)
            return .kept
        }
        switch outcome {
        case .kept: break
        case .observer: addObserver(TimeoutObserver(by: interval, clock: clock))
        case .tooLate:
            ProcedureMisuse.report(
                .timeoutAddedAfterStart,
                "timeout(after: \(interval)) was called on \(displayName), which has already started executing; a timeout starts at will-execute, so none was added. Add timeouts before the procedure is enqueued.",
                subject: self)
        case .notANumber:
            ProcedureMisuse.report(
                .invalidDelay,
                "timeout(after: nan) was called on \(displayName): the interval is not a number, so no timeout was added. Pass a number of seconds (.infinity for none).",
                subject: self)
        }
        return self
    }

    /// Starts the procedure's own timeout, at will-execute.
    func armTimeout(_ timeout: ProcedureTimeout) {
        let interval = timeout.interval
        guard interval < .infinity else { return }
        guard interval > 0 else {
            cancel(withError: ProcedureError.timedOut(after: interval))
            return
        }
        // Captures only the procedure (the callback then needs no context of its own), which it
        // keeps alive until the timeout fires or is dropped as the procedure begins finishing,
        // as a `TimeoutObserver` does.
        let timer = timeout.clock.schedule(after: interval) { [self] in timeoutDidFire() }
        // Dropping happens on this procedure's event loop too, never meanwhile; a timer that
        // fired already simply finds nothing to clear.
        lock.withLock { timeout.timer = timer }
    }

    private func timeoutDidFire() {
        let interval = lock.withLock { () -> TimeInterval? in
            state.timeout?.timer = nil
            return state.timeout?.interval
        }
        if let interval { cancel(withError: ProcedureError.timedOut(after: interval)) }
    }
}
