import Foundation
import XCTest
@testable import ProceduresFutures

/// Completion and handlers: what RXFuture guarantees, for a valued future.
final class FutureCompletionTests: XCTestCase {
    func testCompletesOnceAndLaterAttemptsReportThatTheyLost() {
        let promise = Promise<Int>()
        XCTAssertNil(promise.future.result)
        XCTAssertTrue(promise.succeed(1))
        XCTAssertFalse(promise.succeed(2))
        XCTAssertFalse(promise.fail(FutureTestError()))
        XCTAssertFalse(promise.cancel())
        XCTAssertFalse(promise.complete(.success(3)))
        XCTAssertEqual(promise.future.result?.summary, "success(1)")
        XCTAssertTrue(promise.future.isCompleted)
    }

    func testCancelledFutureIgnoresLaterCompletion() {
        let promise = Promise<Int>()
        XCTAssertTrue(promise.cancel())
        XCTAssertFalse(promise.succeed(1))
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
    }

    func testEachHandlerKindRunsOnlyForItsOutcome() {
        for outcome in [FutureResult<Int>.success(1), .failure(FutureTestError()), .cancelled] {
            let promise = Promise<Int>()
            let log = EventLog<String>()
            promise.future.onSuccess(context: .immediate) { log.append("success \($0)") }
            promise.future.onFailure(context: .immediate) { _ in log.append("failure") }
            promise.future.onCancel(context: .immediate) { log.append("cancel") }
            promise.future.onComplete(context: .immediate) { log.append("complete \($0.summary)") }
            promise.complete(outcome)
            promise.complete(outcome)
            let expected: [String]
            switch outcome {
            case .success: expected = ["success 1", "complete success(1)"]
            case .failure: expected = ["failure", "complete \(outcome.summary)"]
            case .cancelled: expected = ["cancel", "complete cancelled"]
            }
            XCTAssertEqual(log.all, expected)
        }
    }

    func testLateHandlersStillRunOnce() {
        let future = Future(value: 7)
        let log = EventLog<Int>()
        future.onSuccess(context: .immediate) { log.append($0) }
        future.onCancel(context: .immediate) { log.append(-1) }
        future.onComplete(context: .immediate) { log.append($0.value! * 10) }
        XCTAssertEqual(log.all, [7, 70])
    }

    func testHandlersRunInRegistrationOrderWithImmediateContext() {
        let promise = Promise<Int>()
        let log = EventLog<Int>()
        for index in 0..<10 {
            promise.future.onComplete(context: .immediate) { _ in log.append(index) }
        }
        promise.succeed(0)
        XCTAssertEqual(log.all, Array(0..<10))
    }

    func testDefaultContextRunsHandlersOffTheCallingThreadInAPlainProcess() {
        let promise = Promise<Int>()
        let ran = expectation(description: "handler ran on the default context")
        promise.future.onSuccess { value in
            XCTAssertEqual(value, 3)
            ran.fulfill()
        }
        promise.succeed(3)
        wait(for: [ran], timeout: 5)
    }

    func testDefaultContextCanBeMadeImmediate() {
        let saved = DefaultExecutionContext.current
        DefaultExecutionContext.current = .immediate
        defer { DefaultExecutionContext.current = saved }
        let log = EventLog<Int>()
        Future(value: 2).map { $0 * 2 }.onSuccess { log.append($0) }
        XCTAssertEqual(log.all, [4])
    }

    func testDispatchQueueAndOperationQueueContexts() {
        let queue = DispatchQueue(label: "futures.test")
        let operationQueue = OperationQueue()
        let done = expectation(description: "both contexts ran")
        done.expectedFulfillmentCount = 2
        Future(value: 1).onSuccess(context: queue) { _ in
            dispatchPrecondition(condition: .onQueue(queue))
            done.fulfill()
        }
        Future(value: 1).onSuccess(context: operationQueue) { _ in
            XCTAssertNotNil(OperationQueue.current)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func testNoHandlerRunsWhileALockIsHeldSoReentryIsSafe() {
        // A handler that re-enters the future (reads it, registers on it, completes it again)
        // would deadlock if it ran under the future's lock.
        let promise = Promise<Int>()
        let log = EventLog<String>()
        promise.future.onComplete(context: .immediate) { result in
            log.append("outer \(result.summary)")
            XCTAssertTrue(promise.future.isCompleted)
            XCTAssertFalse(promise.succeed(99))
            promise.future.onComplete(context: .immediate) { log.append("inner \($0.summary)") }
            promise.future.map(context: .immediate) { $0 + 1 }.onSuccess(context: .immediate) { log.append("mapped \($0)") }
        }
        promise.succeed(1)
        XCTAssertEqual(log.all, ["outer success(1)", "inner success(1)", "mapped 2"])
    }

    func testHandlersAndTheirCapturesAreReleasedAfterCompletion() {
        let promise = Promise<Int>()
        weak var weakTracked: Tracked?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            promise.future.onComplete(context: .immediate) { _ in _ = tracked }
            promise.onRequestCancel { _ in
                _ = tracked
                return .continue
            }
        }
        XCTAssertNotNil(weakTracked, "held while pending")
        promise.succeed(1)
        XCTAssertNil(weakTracked, "released once completed")
    }

    func testFuturesOfACompletedChainAreReleased() {
        weak var weakMiddle: Future<Int>?
        let promise = Promise<Int>()
        var tail: Future<Int>? = {
            let middle = promise.future.map(context: .immediate) { $0 + 1 }
            weakMiddle = middle
            return middle.map(context: .immediate) { $0 * 2 }
        }()
        XCTAssertNotNil(weakMiddle)
        promise.succeed(1)
        XCTAssertEqual(tail?.result?.summary, "success(4)")
        tail = nil
        XCTAssertNil(weakMiddle)
    }

    func testAbandonedPromiseFailsItsFutureInsteadOfHanging() {
        var promise: Promise<Int>? = Promise()
        let future = promise!.future
        promise = nil
        XCTAssertEqual(future.result?.error as? FutureError, .brokenPromise)
    }

    func testPromiseCompletedWithAnotherFutureTakesItsResultAndMayBeReleased() {
        let source = Promise<Int>()
        var promise: Promise<Int>? = Promise()
        let future = promise!.future
        promise!.complete(with: source.future)
        promise = nil
        XCTAssertNil(future.result, "following, not broken")
        source.succeed(5)
        XCTAssertEqual(future.result?.summary, "success(5)")
    }

    func testPromiseCompletedWithItsOwnFutureFailsInsteadOfHanging() {
        let promise = Promise<Int>()
        promise.complete(with: promise.future)
        XCTAssertEqual(promise.future.result?.error as? FutureError, .cyclicCompletion)
    }

    func testCreationHelpers() throws {
        XCTAssertEqual(Future(value: 1).result?.summary, "success(1)")
        XCTAssertEqual(Future<Int>(error: FutureTestError()).result?.error as? FutureTestError, FutureTestError())
        XCTAssertEqual(future(context: .immediate) { 4 }.result?.summary, "success(4)")
        XCTAssertEqual(future(context: .immediate) { () throws -> Int in throw FutureTestError(code: 2) }.result?.error as? FutureTestError, FutureTestError(code: 2))
        let ran = expectation(description: "ran on the default context")
        future { 5 }.onSuccess { XCTAssertEqual($0, 5); ran.fulfill() }
        wait(for: [ran], timeout: 5)
    }
}

extension FutureCompletionTests {
    func testPromiseAbandonedAfterACancelRequestCompletesAsCancelled() {
        var promise: Promise<Int>? = Promise()
        promise!.onRequestCancel { _ in .continue }
        let future = promise!.future
        future.cancel()
        promise = nil
        XCTAssertEqual(future.result?.summary, "cancelled")
    }
}

extension FutureCompletionTests {
    /// `complete(with:)` is first-wins like every other completion: the future takes the result
    /// of the future it was completed with first, whichever completes first.
    func testFirstCompleteWithWins() {
        let first = Promise<Int>()
        let second = Promise<Int>()
        let promise = Promise<Int>()
        promise.complete(with: first.future)
        promise.complete(with: second.future)
        second.succeed(2)
        first.succeed(1)
        XCTAssertEqual(promise.future.result?.summary, "success(1)")
    }

    /// `complete(with:)` reports whether it took effect: first wins.
    func testCompleteWithReportsALateCall() {
        let promise = Promise<Int>()
        let first = Promise<Int>()
        XCTAssertTrue(promise.complete(with: first.future))
        XCTAssertFalse(promise.complete(with: Future(value: 1)))
        XCTAssertFalse(promise.future.isCompleted)
        first.succeed(2)
        XCTAssertEqual(promise.future.result?.summary, "success(2)")

        let completed = Promise<Int>()
        completed.succeed(3)
        XCTAssertFalse(completed.complete(with: Future(value: 4)))
        XCTAssertEqual(completed.future.result?.summary, "success(3)")
    }
}
