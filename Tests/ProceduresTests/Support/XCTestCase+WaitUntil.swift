import Foundation
import XCTest

extension XCTestCase {
    /// Waits until `condition` holds, for at most `timeout` seconds; fails naming `what` if it
    /// never did (for states no observer reports, such as a waiting reason).
    func waitUntil(
        _ what: String, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
        _ condition: @escaping @Sendable () -> Bool
    ) {
        let met = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in condition() }, object: nil)
        XCTAssertEqual(XCTWaiter().wait(for: [met], timeout: timeout), .completed, "not so: \(what)", file: file, line: line)
    }
}
