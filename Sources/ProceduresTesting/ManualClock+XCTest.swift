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
        let tolerance = Swift.max(1, abs(target)) * 1e-9
        wait(for: clock, timeout: timeout, description: "a callback due at \(target) on the manual clock",
             file: file, line: line) { deadlines in
            deadlines.contains { abs($0 - target) <= tolerance }
        }
        clock.advance(to: target)
    }

    /// Waits (without blocking the procedures' threads) until `clock` has at least `count`
    /// callbacks pending.
    public func waitUntilScheduled(
        on clock: ManualClock, count: Int = 1, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        wait(for: clock, timeout: timeout, description: "\(count) callback(s) pending on the manual clock",
             file: file, line: line) { $0.count >= count }
    }

    /// Waits until the pending deadlines of `clock` (earliest first) satisfy `predicate`.
    public func wait(
        for clock: ManualClock, timeout: TimeInterval = 10, description: String = "the manual clock's schedule",
        file: StaticString = #filePath, line: UInt = #line,
        until predicate: @escaping @Sendable (_ deadlines: [TimeInterval]) -> Bool
    ) {
        let scheduled = XCTestExpectation(description: description)
        clock.whenScheduled(predicate) { scheduled.fulfill() }
        let result = XCTWaiter().wait(for: [scheduled], timeout: timeout)
        if result != .completed {
            XCTFail(
                "Timed out after \(DurationText.seconds(timeout)) waiting for \(description); pending deadlines: \(clock.pendingDeadlines), now: \(clock.now)",
                file: file, line: line)
        }
    }
}
