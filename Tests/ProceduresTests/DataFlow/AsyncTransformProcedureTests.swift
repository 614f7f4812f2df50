import Foundation
import ProceduresTesting
import XCTest

/// `TransformProcedure(operation:)`: an `async throws` transform run in a Task.
final class AsyncTransformProcedureTests: MisuseRecordingTestCase {
    func testFinishesWithTheValueTheOperationReturns() {
        let double = TransformProcedure(input: 21, operation: { (x: Int) async in
            await Task.yield()
            return x * 2
        })
        wait(for: double)
        assertProcedureFinished(double)
        XCTAssertEqual(double.output, 42)
    }

    func testTakesAnInjectedInput() {
        let source = ResultProcedure { "async" }
        let upper = TransformProcedure(operation: { (text: String) async throws in text.uppercased() })
        upper.injectResult(from: source)
        wait(for: source, upper)
        XCTAssertEqual(upper.output, "ASYNC")
    }

    func testFailsWithTheErrorTheOperationThrows() {
        let error = TestError("async")
        let failing = TransformProcedure(input: 1, operation: { (_: Int) async throws -> Int in throw error })
        wait(for: failing)
        assertProcedureFinishedWithErrors(failing, count: 1)
        XCTAssertEqual(failing.errors.first as? TestError, error)
    }

    func testCancellingTheProcedureCancelsItsTask() {
        let started = expectation(description: "the operation started")
        let sawCancellation = LockedBox(false)
        let waiting = TransformProcedure(input: 1, operation: { (x: Int) async throws -> Int in
            started.fulfill()
            // Ends only when the Task is cancelled (or after a minute, which fails the test).
            do {
                try await Task.sleep(nanoseconds: 60_000_000_000)
            } catch {
                sawCancellation.mutate { $0 = true }
                throw error
            }
            return x
        })
        ProcedureQueue().addOperation(waiting)
        wait(for: [started], timeout: 10)
        waiting.cancel()
        wait(for: waiting)
        assertProcedureCancelled(waiting)
        XCTAssertTrue(sawCancellation.value)
        XCTAssertNil(waiting.output)
    }

    func testWithoutInputFailsWithoutRunningTheOperation() {
        let ran = LockedBox(false)
        let transform = TransformProcedure(operation: { (x: Int) async in
            ran.mutate { $0 = true }
            return x
        })
        wait(for: transform)
        guard case .missingInput = transform.errors.first as? ProcedureError else {
            return XCTFail("expected missingInput, got \(transform.errors)")
        }
        XCTAssertFalse(ran.value)
    }
}
