import Foundation
import ProceduresTesting
import XCTest

/// `await future.outcome`: the three-way result without a throw, and partial outputs of
/// procedures that were cancelled.
final class FutureOutcomeTests: XCTestCase {
    func testASuccessIsASuccess() async {
        let outcome = await Future<Int>(value: 3).outcome
        XCTAssertEqual(outcome.value, 3)
    }

    func testAFailureIsAFailure() async {
        let outcome = await Future<Int>(error: TestError("f")).outcome
        XCTAssertEqual(outcome.error as? TestError, TestError("f"))
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

    func testACancelledBatchKeepsItsPartialOutputBesideACancelledFuture() async {
        let box = LockedBox<BatchProcedure<Int, Int>?>(nil)
        let batch = BatchProcedure(input: Array(0..<50), width: 1) { (x: Int) -> Int in
            if x == 5 { box.value?.cancel() }
            return x
        }
        box.mutate { $0 = batch }
        let outcome = await ProcedureQueue().future(batch).outcome
        XCTAssertTrue(outcome.isCancelled)
        let done = batch.partialOutput?.compactMap { $0 }
        XCTAssertEqual(done, [0, 1, 2, 3, 4])
    }
}
