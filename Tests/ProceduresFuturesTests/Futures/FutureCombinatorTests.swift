import Foundation
import XCTest
@testable import ProceduresFutures

/// The combinator set (SimpleFutures, BrightFutures) on completed and pending futures.
final class FutureCombinatorTests: XCTestCase {
    private let immediate = ImmediateExecutionContext()

    func testMapTransformsValuesAndPassesFailuresAndCancellation() {
        XCTAssertEqual(Future(value: 2).map(context: immediate) { $0 * 3 }.result?.summary, "success(6)")
        XCTAssertEqual(Future<Int>(error: FutureTestError()).map(context: immediate) { $0 * 3 }.result?.error as? FutureTestError, FutureTestError())
        XCTAssertEqual(Future<Int>(result: .cancelled).map(context: immediate) { $0 * 3 }.result?.summary, "cancelled")
        let thrown = Future(value: 2).map(context: immediate) { _ -> Int in throw FutureTestError(code: 5) }
        XCTAssertEqual(thrown.result?.error as? FutureTestError, FutureTestError(code: 5))
    }

    func testMapOnAPendingFutureOnAQueue() {
        let promise = Promise<Int>()
        let queue = DispatchQueue(label: "map")
        let done = expectation(description: "mapped")
        promise.future.map(context: queue) { value -> String in
            dispatchPrecondition(condition: .onQueue(queue))
            return "\(value)"
        }.onSuccess(context: immediate) {
            XCTAssertEqual($0, "8")
            done.fulfill()
        }
        promise.succeed(8)
        wait(for: [done], timeout: 5)
    }

    func testFlatMapFollowsTheReturnedFuture() {
        let inner = Promise<String>()
        let chained = Future(value: 1).flatMap(context: immediate) { _ in inner.future }
        XCTAssertNil(chained.result)
        inner.succeed("x")
        XCTAssertEqual(chained.result?.summary, "success(x)")
        let failing = Future(value: 1).flatMap(context: immediate) { _ -> Future<Int> in throw FutureTestError() }
        XCTAssertEqual(failing.result?.error as? FutureTestError, FutureTestError())
    }

    func testWithFilterFailsWithNoSuchElement() {
        XCTAssertEqual(Future(value: 4).withFilter(context: immediate) { $0 > 3 }.result?.summary, "success(4)")
        XCTAssertEqual(Future(value: 2).withFilter(context: immediate) { $0 > 3 }.result?.error as? FutureError, .noSuchElement)
    }

    func testForEachRunsOnlyOnSuccess() {
        let log = EventLog<Int>()
        Future(value: 1).forEach(context: immediate) { log.append($0) }
        Future<Int>(error: FutureTestError()).forEach(context: immediate) { log.append($0) }
        XCTAssertEqual(log.all, [1])
    }

    func testAndThenRunsTheSideEffectBeforePassingTheResultOn() {
        let log = EventLog<String>()
        let promise = Promise<Int>()
        let next = promise.future.andThen(context: immediate) { log.append("side \($0)") }
        next.onSuccess(context: immediate) { log.append("next \($0)") }
        promise.succeed(1)
        XCTAssertEqual(log.all, ["side 1", "next 1"])
        XCTAssertEqual(Future<Int>(error: FutureTestError()).andThen(context: immediate) { _ in log.append("no") }.result?.error as? FutureTestError, FutureTestError())
        XCTAssertEqual(log.count, 2)
    }

    func testRecoverAndRecoverWithReplaceFailuresOnly() {
        XCTAssertEqual(Future<Int>(error: FutureTestError()).recover(context: immediate) { _ in 0 }.result?.summary, "success(0)")
        XCTAssertEqual(Future(value: 1).recover(context: immediate) { _ in 0 }.result?.summary, "success(1)")
        XCTAssertEqual(Future<Int>(result: .cancelled).recover(context: immediate) { _ in 0 }.result?.summary, "cancelled")
        XCTAssertEqual(Future<Int>(error: FutureTestError()).recoverWith(context: immediate) { _ in Future(value: 5) }.result?.summary, "success(5)")
        let rethrown = Future<Int>(error: FutureTestError(code: 1)).recover(context: immediate) { _ in throw FutureTestError(code: 2) }
        XCTAssertEqual(rethrown.result?.error as? FutureTestError, FutureTestError(code: 2))
    }

    func testMapErrorReplacesTheError() {
        let mapped = Future<Int>(error: FutureTestError(code: 1)).mapError(context: immediate) { _ in FutureTestError(code: 9) }
        XCTAssertEqual(mapped.result?.error as? FutureTestError, FutureTestError(code: 9))
        XCTAssertEqual(Future(value: 1).mapError(context: immediate) { _ in FutureTestError() }.result?.summary, "success(1)")
    }

    func testSequenceKeepsOrderAndFailsFast() {
        let promises = (0..<3).map { _ in Promise<Int>() }
        let all = promises.map(\.future).sequence()
        promises[2].succeed(2)
        promises[0].succeed(0)
        XCTAssertNil(all.result)
        promises[1].succeed(1)
        XCTAssertEqual(all.result?.value, [0, 1, 2])

        let failing = Promise<Int>()
        let pending = Promise<Int>()
        let partial = [Future(value: 1), failing.future, pending.future].sequence()
        failing.fail(FutureTestError())
        XCTAssertEqual(partial.result?.error as? FutureTestError, FutureTestError())
        XCTAssertEqual([Future<Int>]().sequence().result?.value, [])
    }

    func testFoldAccumulatesInOrder() {
        let folded = [Future(value: "a"), Future(value: "b"), Future(value: "c")].fold(context: immediate, initial: "") { $0 + $1 }
        XCTAssertEqual(folded.result?.summary, "success(abc)")
        let failed = [Future(value: 1), Future(error: FutureTestError())].fold(context: immediate, initial: 0) { $0 + $1 }
        XCTAssertEqual(failed.result?.error as? FutureTestError, FutureTestError())
    }

    func testTraverseMapsEveryElementToAFuture() {
        let traversed = [1, 2, 3].traverse(context: immediate) { Future(value: $0 * 10) }
        XCTAssertEqual(traversed.result?.value, [10, 20, 30])
    }

    func testZipWaitsForBothAndFailsWithEither() {
        let left = Promise<Int>()
        let right = Promise<String>()
        let zipped = zip(left.future, right.future)
        right.succeed("r")
        XCTAssertNil(zipped.result)
        left.succeed(1)
        XCTAssertEqual(zipped.result?.value?.0, 1)
        XCTAssertEqual(zipped.result?.value?.1, "r")
        let failed = Future(value: 1).zip(Future<Int>(error: FutureTestError()))
        XCTAssertEqual(failed.result?.error as? FutureTestError, FutureTestError())
    }

    func testFirstCompletedTakesTheFirstResult() {
        let slow = Promise<Int>()
        let fast = Promise<Int>()
        let first = [slow.future, fast.future].firstCompleted()
        fast.succeed(2)
        slow.succeed(1)
        XCTAssertEqual(first.result?.summary, "success(2)")
    }

    func testCompletionHandlerAdapters() {
        func valueOrError(_ done: @escaping (Int?, (any Error)?) -> Void) { done(3, nil) }
        func onlyError(_ done: @escaping ((any Error)?) -> Void) { done(FutureTestError()) }
        func onlyValue(_ done: @escaping (String) -> Void) { done("v") }
        func neither(_ done: @escaping (Int?, (any Error)?) -> Void) { done(nil, nil) }
        func never(_ done: @escaping (Int) -> Void) {}
        XCTAssertEqual(future(method: valueOrError).result?.summary, "success(3)")
        XCTAssertEqual(future(method: onlyError).result?.error as? FutureTestError, FutureTestError())
        XCTAssertEqual(future(method: onlyValue).result?.summary, "success(v)")
        XCTAssertEqual(future(method: neither).result?.error as? FutureError, .missingValue)
        XCTAssertEqual(future(method: never).result?.error as? FutureError, .brokenPromise)
    }

    func testCombinatorsRunOnTheDefaultContextWhenNoneIsGiven() {
        let done = expectation(description: "chain completed on the default context")
        Future(value: 1)
            .map { $0 + 1 }
            .flatMap { Future(value: $0 * 10) }
            .recover { _ in 0 }
            .onSuccess {
                XCTAssertEqual($0, 20)
                done.fulfill()
            }
        wait(for: [done], timeout: 5)
    }
}

extension FutureCombinatorTests {
    /// `flatMap` returning an already-cancelled future cancels the result (never hangs), on
    /// the immediate, the hopping and the completed-source paths.
    func testFlatMapReturningACancelledFutureNeverHangs() {
        let pending = Promise<Int>()
        let viaPending = pending.future.flatMap(context: .immediate) { _ in Future<Int>(result: .cancelled) }
        let viaQueue = pending.future.flatMap(context: DispatchQueue.global()) { _ in Future<Int>(result: .cancelled) }
        let viaCompleted = Future(value: 1).flatMap(context: .immediate) { _ in Future<Int>(result: .cancelled) }
        let done = expectation(description: "queue path completes")
        viaQueue.onCancel(context: .immediate) { done.fulfill() }
        pending.succeed(1)
        wait(for: [done], timeout: 5)
        XCTAssertEqual(viaPending.result?.summary, "cancelled")
        XCTAssertEqual(viaCompleted.result?.summary, "cancelled")
    }
}
