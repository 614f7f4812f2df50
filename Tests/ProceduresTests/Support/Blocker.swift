import Foundation
import ProceduresTesting
import XCTest

/// A result procedure that runs until the test releases it with a value (or an error), or until
/// it is cancelled, in which case it finishes at once. It reports when it executes.
final class Blocker<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    // @unchecked: `executed` is immutable and thread-safe; the rest lives in the base class.
    let executed: XCTestExpectation
    private let executions = LockedBox(0)

    init(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        executed = XCTestExpectation(description: "\(name) executes")
        super.init()
        self.name = name
    }

    /// How many times `execute()` ran.
    var executeCount: Int { executions.value }

    override func execute() {
        executions.mutate { $0 += 1 }
        executed.fulfill()
    }

    /// Finishes with `value` (from the test's thread).
    func release(_ value: Output) { finish(withOutput: value) }

    /// Finishes with `error`.
    func fail(_ error: any Error) { finish(withError: error) }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        // Only a running procedure finishes itself; one cancelled before it started is
        // finished by the library when its queue starts it.
        if executeCount > 0 { finish() }
    }
}

extension XCTestCase {
    /// Waits (up to `timeout`) for `future` to complete and returns its result; nil on timeout.
    func waitForResult<T>(
        of future: Future<T>, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line
    ) -> FutureResult<T>? {
        let done = XCTestExpectation(description: "future completes")
        let box = LockedBox<FutureResult<T>?>(nil)
        future.onComplete(context: .immediate) { result in
            box.mutate { $0 = result }
            done.fulfill()
        }
        let outcome = XCTWaiter().wait(for: [done], timeout: timeout)
        if outcome != .completed {
            XCTFail("the future did not complete within \(timeout) s", file: file, line: line)
        }
        return box.value
    }
}

extension FutureResult {
    /// The error of a failure, cast to `E`.
    func typedError<E: Error>(_: E.Type) -> E? { error as? E }
}
