import Foundation

/// Counts arrivals (procedures finishing, a pipe closing) and lets one thread wait, bounded,
/// until enough have arrived. Unlike an XCTest expectation, it may be arrived at after the
/// test that waited for it has ended.
public final class ArrivalCount: @unchecked Sendable {
    // @unchecked: `count` is only touched under `condition`.
    private let condition = NSCondition()
    private var count = 0

    public init() {}

    public func arrive() {
        condition.withLock {
            count += 1
            condition.broadcast()
        }
    }

    /// True once `expected` arrived; false if `deadline` passed first.
    public func wait(for expected: Int = 1, until deadline: Date) -> Bool {
        condition.withLock {
            while count < expected {
                if !condition.wait(until: deadline) { return count >= expected }
            }
            return true
        }
    }

    /// True once `expected` arrived; false if `seconds` passed first.
    public func wait(for expected: Int, seconds: TimeInterval) -> Bool {
        wait(for: expected, until: Date(timeIntervalSinceNow: seconds))
    }
}
