import Foundation

/// The time source behind every wait the library makes: ``DelayProcedure``, the waits of
/// ``RepeatProcedure`` and ``RetryProcedure``, and ``TimeoutObserver``.
///
/// The default everywhere is ``SystemClock/shared``, real time. Tests pass a `ManualClock`
/// (from `ProceduresTesting`) instead and move time forward by hand, so a minute of back-off
/// runs in milliseconds, deterministically.
///
/// A clock is chosen **per procedure** (each of those types takes a `clock:` argument), not
/// per queue: a procedure's waits belong to the procedure, whichever queue (or group's
/// private queue) runs it, and tests running in parallel never share a clock by accident.
/// A ``RepeatProcedure`` hands its clock to the waits it makes between operations.
///
/// Time on a clock is a number of seconds on the clock's own monotonic scale: compare it only
/// with other readings of the same clock.
///
/// ```swift
/// let clock = SystemClock.shared
/// let timer = clock.schedule(at: clock.now + 5) { print("five seconds later") }
/// timer.cancel()  // never mind
/// ```
public protocol ProcedureClock: Sendable {
    /// The current time, in seconds, on this clock's own monotonic scale.
    var now: TimeInterval { get }

    /// Calls `action` once, as soon as the clock reaches `deadline`, unless the returned
    /// handle is cancelled first.
    ///
    /// Callbacks due at the same time run in the order they were scheduled. A deadline that is
    /// not after ``now`` is due at once (a manual clock runs it at its next advance). An infinite
    /// deadline never comes: the callback only goes away when cancelled. Cancelling is cheap
    /// and may be done from any thread, any number of times; a callback cancelled before it
    /// ran never runs.
    func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any Cancelable
}

extension ProcedureClock {
    /// Schedules `action` `interval` seconds from ``now``. See ``schedule(at:_:)``.
    public func schedule(after interval: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any Cancelable {
        schedule(at: now + interval, action)
    }
}
