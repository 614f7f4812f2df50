import Testing
import XCTest

/// Fails the running test, whichever framework runs it: an issue in a Swift Testing test (at
/// the helper's own source location; the message says what failed), `XCTFail` at `file` and
/// `line` otherwise. For helpers that fail from a callback rather than from a call in the test.
enum TestFailure {
    static func record(_ message: String, file: StaticString, line: UInt) {
        if Test.current != nil {
            Issue.record(Comment(rawValue: message))
        } else {
            XCTFail(message, file: file, line: line)
        }
    }
}
