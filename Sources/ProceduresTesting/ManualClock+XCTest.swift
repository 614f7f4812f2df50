import Foundation
import Procedures
import XCTest

extension XCTestCase {
    /// Waits (without blocking the procedures' threads) until `clock` has a callback due
    /// `interval` seconds from its current time, then advances it by `interval`, running
    /// everything due by then.
    ///
    /// Work that an advance sets off (the next attempt of a retry, on a queue) schedules its
    /// own wait later, on another thread; this is how a test steps through those waits one
    /// by one, deterministically, with no sleeps:
    ///
    /// ```swift
    /// for seconds in [1.0, 2, 4, 8] { advance(clock, by: seconds) }
    /// ```
    ///
    /// A callback due within `interval` but not exactly at its end (a timeout scheduled
    /// meanwhile, say) does not count as the one awaited, though the advance runs it too.
    /// Fails the test if no such callback is scheduled within `timeout` real seconds.
    public func advance(
        _ clock: ManualClock, by interval: TimeInterval, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let target = clock.now + interval
        wait(for: clock, until: .callback(dueAt: target), timeout: timeout, file: file, line: line)
        clock.advance(to: target)
    }

    /// Waits (without blocking the procedures' threads) until `clock` has at least `count`
    /// callbacks pending.
    public func waitUntilScheduled(
        on clock: ManualClock, count: Int = 1, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        wait(for: clock, until: .scheduled(count: count), timeout: timeout, file: file, line: line)
    }

    /// Waits until the pending deadlines of `clock` (earliest first) satisfy `predicate`.
    public func wait(
        for clock: ManualClock, timeout: TimeInterval = 10, description: String = "the manual clock's schedule",
        file: StaticString = #filePath, line: UInt = #line,
        until predicate: @escaping @Sendable (_ deadlines: [TimeInterval]) -> Bool
    ) {
        wait(for: clock, until: ManualClockWait(description: description, predicate: predicate),
             timeout: timeout, file: file, line: line)
    }

    private func wait(
        for clock: ManualClock, until awaited: ManualClockWait, timeout: TimeInterval,
        file: StaticString, line: UInt
    ) {
        let scheduled = XCTestExpectation(description: awaited.description)
        clock.whenScheduled(awaited.predicate) { scheduled.fulfill() }
        if XCTWaiter().wait(for: [scheduled], timeout: timeout) != .completed {
            XCTFail(awaited.timeoutMessage(timeout: timeout, clock: clock), file: file, line: line)
        }
    }
}
