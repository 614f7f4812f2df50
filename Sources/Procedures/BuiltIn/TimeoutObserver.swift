import Foundation
import ProceduresSupport

/// Cancels a procedure with ``ProcedureError/timedOut(after:)`` if it has not finished in
/// time.
///
/// ``init(by:clock:)`` starts the clock at will-execute and gives the procedure that many
/// seconds from then. The time a procedure spends waiting for its dependencies, its
/// conditions or its exclusivity categories (or for a slot on its queue) is not counted: it is
/// not doing its work yet.
///
/// ``init(until:clock:)`` is a deadline. It is armed as soon as the procedure starts waiting
/// for its conditions or its exclusivity categories (or, for a procedure without any, at
/// will-execute), so a procedure still waiting when the date passes (for a condition that never
/// answers, or behind another procedure holding its category) is cancelled there and never
/// executes; the cancel withdraws it from the category's line. A procedure that reaches
/// will-execute after the date is cancelled there.
///
/// ```swift
/// let fetch = FetchProcedure(url: url)
/// fetch.addObserver(TimeoutObserver(by: 10))
/// // or, the same thing:
/// fetch.timeout(after: 10)
/// ```
///
/// The callback lives on a ``ProcedureClock`` (``SystemClock/shared`` unless you pass
/// another) and is removed when the procedure begins finishing, for whatever reason: a
/// timeout that never fires costs one entry in the clock's heap, no timer and no thread of its
/// own. Cancelling is a request: a procedure that ignores cancellation keeps running (see
/// <doc:Cancellation>). A procedure that finishes before the timeout fires is not cancelled;
/// when the two race, whichever reaches the procedure first wins, as with any cancel.
///
/// Attach it before the procedure executes (an observer added later never sees
/// will-execute, so no timer starts). One observer may watch several procedures; each gets
/// its own deadline.
public final class TimeoutObserver: ConditionWaitObserver, @unchecked Sendable {
    // @unchecked: `timers` is only touched under this object's stripe of `StripedLock` (a
    // lock of its own would add two allocations to each procedure with a timeout; the
    // critical sections are a few stores long, take no other lock and free nothing). The
    // other properties are immutable.

    /// How long the procedure may run: an interval from will-execute, or a date.
    public let delay: DelayProcedure.Delay
    /// The clock the timeout is measured on.
    public let clock: any ProcedureClock

    // Only touched under this object's stripe (off the hot path: the runtime's exclusivity check stays on).
    private var timers = Timers.none

    /// The pending timeout of each procedure watched; almost always exactly one.
    private enum Timers {
        case none
        case one(ObjectIdentifier, any Cancelable)
        case many([ObjectIdentifier: any Cancelable])
    }

    /// Times out `interval` seconds after will-execute. A zero or negative interval times out
    /// at will-execute, so `execute()` never runs; an infinite one never times out. A NaN
    /// interval is reported to ``ProcedureMisuse`` and never times out.
    public convenience init(by interval: TimeInterval, clock: any ProcedureClock = SystemClock.shared) {
        self.init(.by(interval), clock: clock)
    }

    /// Times out at `date` (wall-clock time), a deadline that also covers the time the
    /// procedure waits for its conditions and exclusivity categories. A procedure that reaches
    /// will-execute after `date` times out there and never executes.
    public convenience init(until date: Date, clock: any ProcedureClock = SystemClock.shared) {
        self.init(.until(date), clock: clock)
    }

    /// Times out after `delay`, measured on `clock`.
    public init(_ delay: DelayProcedure.Delay, clock: any ProcedureClock = SystemClock.shared) {
        self.delay = delay
        self.clock = clock
        if case .by(let interval) = delay, interval.isNaN {
            ProcedureMisuse.report(
                .invalidDelay, "TimeoutObserver(by: nan): the interval is not a number; the procedure will never time out.",
                subject: self)
        }
    }

    /// Starts the timer (for a deadline, unless it started while the procedure waited).
    public func willExecute(_ procedure: Procedure) {
        arm(for: procedure)
    }

    /// Arms a deadline (``init(until:clock:)``) for `procedure`, which begins waiting for its
    /// conditions or exclusivity categories; nothing for a `by:` timeout, which starts at
    /// will-execute.
    func procedureBeginsWaitingForConditions(_ procedure: Procedure) {
        guard case .until = delay else { return }
        arm(for: procedure)
    }

    /// Schedules the cancel for `procedure`, once: a deadline armed while it waited is not
    /// armed again at will-execute.
    private func arm(for procedure: Procedure) {
        let id = ObjectIdentifier(procedure)
        // Only a deadline can have been armed before will-execute.
        if case .until = delay {
            let armed = StripedLock.withLock(for: self) { () -> Bool in
                switch timers {
                case .none: return false
                case .one(let other, _): return other == id
                case .many(let all): return all[id] != nil
                }
            }
            guard !armed else { return }
        }
        let interval: TimeInterval
        switch delay {
        case .by(let seconds): interval = seconds
        case .until(let date): interval = max(0, date.timeIntervalSinceNow)
        }
        guard !interval.isNaN, interval < .infinity else { return }
        guard interval > 0 else {
            procedure.cancel(withError: ProcedureError.timedOut(after: interval))
            return
        }
        // Strong: the entry is removed when the procedure begins finishing, and a weak
        // reference would cost every procedure a side table.
        let timer = clock.schedule(after: interval) {
            procedure.cancel(withError: ProcedureError.timedOut(after: interval))
        }
        StripedLock.withLock(for: self) {
            switch timers {
            case .none: timers = .one(id, timer)
            case .one(let other, let otherTimer): timers = .many([other: otherTimer, id: timer])
            case .many(var all):
                timers = .none  // leaves `all` uniquely referenced, so it is not copied
                all[id] = timer
                timers = .many(all)
            }
        }
    }

    /// Drops the timer: a procedure that is finishing can no longer be cancelled.
    public func willFinish(_ procedure: Procedure, errors: [any Error]) {
        let id = ObjectIdentifier(procedure)
        let timer = StripedLock.withLock(for: self) { () -> (any Cancelable)? in
            switch timers {
            case .none:
                return nil
            case .one(let other, let timer):
                guard other == id else { return nil }
                timers = .none
                return timer
            case .many(var all):
                timers = .none
                let timer = all.removeValue(forKey: id)
                timers = .many(all)
                return timer
            }
        }
        timer?.cancel()
    }
}
