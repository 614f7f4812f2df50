import Foundation
import XCTest

/// Runs one test of a test target in a child copy of the test binary, for tests whose failure
/// mode is a crash (a stack overflow, a fatal error inside Foundation): the crash then fails
/// that test instead of ending the whole run. The child sees `PROCEDURES_TEST_CHILD=1`.
extension XCTestCase {
    public static var childVariable: String { "PROCEDURES_TEST_CHILD" }

    /// Whether this process is the child copy started by ``assertChildSurvives(_:file:line:)``.
    public var isChild: Bool { ProcessInfo.processInfo.environment[Self.childVariable] == "1" }

    /// Runs the test `name` of this class in a child copy of the test binary; returns how the
    /// child ended and what it printed.
    public func runInChild(_ name: String, timeout: TimeInterval = 20) -> (status: Int32, reason: Process.TerminationReason, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        // The filter XCTest takes: `Module.Class/test`, for whichever test target this runs in.
        process.arguments = ["\(String(reflecting: type(of: self)))/\(name)"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let ended = expectation(description: "child \(name) ended")
        process.terminationHandler = { _ in ended.fulfill() }
        do { try process.run() } catch {
            XCTFail("could not run the child: \(error)")
            return (-1, .exit, "")
        }
        // Read on a thread of its own so that a child that hangs fails this test at the
        // timeout (and is killed) instead of hanging the whole run.
        let output = LockedBox(Data())
        let closed = expectation(description: "child \(name)'s output closed")
        Thread.detachNewThread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            output.mutate { $0 = data }
            closed.fulfill()
        }
        if XCTWaiter().wait(for: [ended, closed], timeout: timeout) != .completed {
            XCTFail("the child running \(name) did not end within \(timeout) s; killed")
            kill(process.processIdentifier, SIGKILL)
            wait(for: [ended, closed], timeout: 10)
        }
        let data = output.value
        return (process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self))
    }

    /// Asserts that the child run of `name` ended normally with its test passing.
    public func assertChildSurvives(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let (status, reason, output) = runInChild(name)
        let tail = output.split(separator: "\n").suffix(6).joined(separator: "\n")
        XCTAssertTrue(
            reason == .exit && status == 0,
            "child \(name) ended by \(reason == .exit ? "exit" : "signal") \(status):\n\(tail)", file: file, line: line)
        // A filter that matches nothing also exits 0: the child must have run the one test.
        XCTAssertTrue(
            output.contains("Executed 1 test,"), "the child ran no test named \(name):\n\(tail)", file: file, line: line)
    }
}
