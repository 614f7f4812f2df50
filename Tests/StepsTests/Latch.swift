import Foundation

/// Set once, waited for with a deadline by the test's thread. Unlike an XCTest expectation, it
/// may be set after the test that waited for it has ended.
final class Latch: @unchecked Sendable {
    // @unchecked: `isSet` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var isSet = false

    func set() {
        condition.lock()
        isSet = true
        condition.broadcast()
        condition.unlock()
    }

    /// True once set; false if `deadline` passed first.
    func wait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isSet {
            if !condition.wait(until: deadline) { return isSet }
        }
        return true
    }
}
