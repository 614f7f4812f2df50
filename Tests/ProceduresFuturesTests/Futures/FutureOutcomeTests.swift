import ProceduresFutures
import XCTest

/// `await future.outcome`: the three-way result, without a throw for the cancel.
final class FutureOutcomeTests: XCTestCase {
    func testASuccessIsASuccess() async {
        let outcome = await Future<Int>(value: 3).outcome
        XCTAssertEqual(outcome.value, 3)
    }

    func testAFailureIsAFailure() async {
        let outcome = await Future<Int>(error: FutureTestError(code: 1)).outcome
        XCTAssertEqual(outcome.error as? FutureTestError, FutureTestError(code: 1))
    }

    func testACancelledFutureIsCancelledWithoutAThrow() async {
        let promise = Promise<Int>()
        let future = promise.future
        Task {
            await Task.yield()
            promise.complete(.cancelled)
        }
        let outcome = await future.outcome
        XCTAssertTrue(outcome.isCancelled)
    }

    func testCancellingTheAwaitingTaskSendsACancelRequest() async {
        let promise = Promise<Int>()
        let asked = expectation(description: "cancel requested")
        promise.onRequestCancel { _ in
            asked.fulfill()
            return .complete(.cancelled)
        }
        let future = promise.future
        let task = Task { await future.outcome }
        task.cancel()
        let outcome = await task.value
        await fulfillment(of: [asked], timeout: 10)
        XCTAssertTrue(outcome.isCancelled)
    }
}
