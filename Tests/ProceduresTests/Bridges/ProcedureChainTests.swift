import Foundation
import ProceduresTesting
import XCTest

/// Chains of procedures composed as futures: `queue.future(A()).flatMap { queue.future(B($0)) }`.
final class ProcedureChainTests: XCTestCase {
    /// A procedure that runs until cancelled (or finished by the test) and reports when it executes.
    final class Gate<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
        let executing: XCTestExpectation
        init(_ name: String, executing: XCTestExpectation) {
            self.executing = executing
            super.init()
            self.name = name
        }
        override func execute() { executing.fulfill() }
        override func procedureDidCancel(withErrors errors: [any Error]) { finish() }
    }

    func testTokenFromTailCancelsTheFirstProcedureWhileItRuns() {
        let queue = ProcedureQueue()
        let aRunning = expectation(description: "A executes")
        let a = Gate<Int>("A", executing: aRunning)
        let bCreated = LockedBox(false)
        let tail = queue.future(a).flatMap { (value: Int) -> Future<Int> in
            bCreated.mutate { $0 = true }
            return queue.future(ResultProcedure { value + 1 })
        }
        wait(for: [aRunning], timeout: 10)
        let done = expectation(description: "tail completes")
        tail.onComplete { result in
            XCTAssertTrue(result.isCancelled, "\(result)")
            done.fulfill()
        }
        tail.cancel()
        wait(for: [done], timeout: 10)
        wait(for: a)
        assertProcedureCancelled(a)
        XCTAssertFalse(bCreated.value, "B is never created once A was cancelled")
    }

    func testTokenFromTailCancelsTheSecondProcedureOnceItRuns() {
        let queue = ProcedureQueue()
        let bRunning = expectation(description: "B executes")
        let b = Gate<String>("B", executing: bRunning)
        let a = ResultProcedure { 41 }
        let tail = queue.future(a).flatMap { _ in queue.future(b) }
        wait(for: [bRunning], timeout: 10)
        let done = expectation(description: "tail completes")
        tail.onComplete { result in
            XCTAssertTrue(result.isCancelled, "\(result)")
            done.fulfill()
        }
        tail.cancellationToken().cancel()
        wait(for: [done], timeout: 10)
        assertProcedureFinished(a)
        wait(for: b)
        assertProcedureCancelled(b)
    }

    func testAwaitingAChainFromAsyncCode() async throws {
        let queue = ProcedureQueue()
        let value = try await queue.future(ResultProcedure { 20 })
            .flatMap { x in queue.future(ResultProcedure { x + 22 }) }
            .value
        XCTAssertEqual(value, 42)
        let direct = try await queue.run(ResultProcedure { "hello" })
        XCTAssertEqual(direct, "hello")
    }
}
