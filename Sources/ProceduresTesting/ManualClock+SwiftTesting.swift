import Foundation
import Procedures
import Testing

// The manual clock's waits for `@Test` functions: the same as `XCTestCase`'s `advance(_:by:)`,
// `waitUntilScheduled(on:count:)` and `wait(for:until:)`, awaited. ManualClock is Sendable, so a
// test may share one with the procedures it drives and with tasks of its own.

/// Waits (suspending the test's task, blocking no thread) until `clock` has a callback due
/// `interval` seconds from its current time, then advances it by `interval`, running
/// everything due by then on the calling task's thread.
///
/// Work that an advance sets off (the next attempt of a retry, on a queue) schedules its own
/// wait later, on another thread; this is how a test steps through those waits one by one,
/// with no sleeps:
///
/// ```swift
/// for seconds in [1.0, 2, 4, 8] { try await advance(clock, by: seconds) }
/// ```
///
/// A callback due within `interval` but not exactly at its end does not count as the one
/// awaited, though the advance runs it too. If no such callback is scheduled within `timeout`
/// real seconds, it records an issue at the caller (with the pending deadlines), leaves the
/// clock alone and throws, which stops the test.
public func advance(
    _ clock: ManualClock, by interval: TimeInterval, timeout: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let target = clock.now + interval
    try await wait(for: clock, until: .callback(dueAt: target), timeout: timeout, sourceLocation: sourceLocation)
    clock.advance(to: target)
}

/// Waits (suspending the test's task, blocking no thread) until `clock` has at least `count`
/// callbacks pending; on timeout it records an issue and throws, as
/// ``advance(_:by:timeout:sourceLocation:)`` does.
public func waitUntilScheduled(
    on clock: ManualClock, count: Int = 1, timeout: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await wait(for: clock, until: .scheduled(count: count), timeout: timeout, sourceLocation: sourceLocation)
}

/// Waits until the pending deadlines of `clock` (earliest first) satisfy `predicate`; on
/// timeout it records an issue naming `description` and throws.
public func wait(
    for clock: ManualClock, timeout: TimeInterval = 10, description: String = "the manual clock's schedule",
    sourceLocation: SourceLocation = #_sourceLocation,
    until predicate: @escaping @Sendable (_ deadlines: [TimeInterval]) -> Bool
) async throws {
    try await wait(
        for: clock, until: ManualClockWait(description: description, predicate: predicate), timeout: timeout,
        sourceLocation: sourceLocation)
}

private func wait(
    for clock: ManualClock, until awaited: ManualClockWait, timeout: TimeInterval, sourceLocation: SourceLocation
) async throws {
    let scheduled = TimedSignal()
    clock.whenScheduled(awaited.predicate) { scheduled.signal() }
    switch await scheduled.wait(timeout: timeout) {
    case .signalled:
        return
    case .cancelled:
        throw CancellationError()
    case .timedOut:
        try SwiftTestingFailure.stop(awaited.timeoutMessage(timeout: timeout, clock: clock), sourceLocation: sourceLocation)
    }
}
