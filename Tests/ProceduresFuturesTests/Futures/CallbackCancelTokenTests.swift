import XCTest
@testable import ProceduresFutures

/// Callbacks registered with a CancellationToken: what SimpleFutures guarantees.
/// Where SimpleFutures leaves derived futures pending forever, here they complete as
/// cancelled, and the tests are named after that rule.
final class CallbackCancelTokenTests: XCTestCase {
    private let immediate = ImmediateExecutionContext()

    func testCallbackRegisteredWithACancelledTokenNeverRuns() {
        let promise = Promise<Int>()
        let request = CancellationRequest()
        let log = EventLog<Int>()
        promise.future.onSuccess(context: immediate, cancelToken: request.token) { log.append($0) }
        request.cancel()
        promise.succeed(1)
        XCTAssertEqual(log.count, 0)
    }

    func testCancellingAfterCompletionLeavesCallbacksThatRanAlone() {
        let request = CancellationRequest()
        let log = EventLog<Int>()
        Future(value: 1).onSuccess(context: immediate, cancelToken: request.token) { log.append($0) }
        request.cancel()
        XCTAssertEqual(log.all, [1])
    }

    func testOneTokenRemovesEveryCallbackRegisteredWithItOnAnyFuture() {
        let first = Promise<Int>()
        let second = Promise<Int>()
        let request = CancellationRequest()
        let log = EventLog<String>()
        first.future.onSuccess(context: immediate, cancelToken: request.token) { _ in log.append("a") }
        first.future.onComplete(context: immediate, cancelToken: request.token) { _ in log.append("b") }
        second.future.onSuccess(context: immediate, cancelToken: request.token) { _ in log.append("c") }
        first.future.onSuccess(context: immediate) { _ in log.append("untokened") }
        request.cancel()
        first.succeed(1)
        second.succeed(2)
        XCTAssertEqual(log.all, ["untokened"], "the producer still completes; other callbacks still run")
    }

    func testCallbacksAreReleasedAsSoonAsTheTokenIsCancelled() {
        let promise = Promise<Int>()
        let request = CancellationRequest()
        weak var weakTracked: Tracked?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            promise.future.onSuccess(context: immediate, cancelToken: request.token) { _ in _ = tracked }
        }
        XCTAssertNotNil(weakTracked)
        request.cancel()
        XCTAssertNil(weakTracked, "released at cancel time, not when the future completes")
    }

    func testTokenHandlersAreRemovedWhenTheFutureCompletesFirst() {
        let request = CancellationRequest()
        weak var weakTracked: Tracked?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            let promise = Promise<Int>()
            promise.future.onSuccess(context: immediate, cancelToken: request.token) { _ in _ = tracked }
            promise.future.map(context: immediate, cancelToken: request.token) { _ in _ = tracked }.onSuccess(context: immediate) { _ in }
            promise.succeed(1)
        }
        XCTAssertNil(weakTracked, "a long-lived token does not keep completed work alive")
    }

    func testDerivedFuturesCompleteAsCancelledInsteadOfHangingForEveryCombinator() {
        let promise = Promise<Int>()
        let request = CancellationRequest()
        let token = request.token
        let derived: [Future<Int>] = [
            promise.future.map(context: immediate, cancelToken: token) { $0 },
            promise.future.flatMap(context: immediate, cancelToken: token) { Future(value: $0) },
            promise.future.withFilter(context: immediate, cancelToken: token) { _ in true },
            promise.future.recover(context: immediate, cancelToken: token) { _ in 0 },
            promise.future.recoverWith(context: immediate, cancelToken: token) { _ in Future(value: 0) },
            promise.future.mapError(context: immediate, cancelToken: token) { $0 },
            promise.future.andThen(context: immediate, cancelToken: token) { _ in },
        ]
        let forEachRan = Counter()
        promise.future.forEach(context: immediate, cancelToken: token) { _ in forEachRan.increment() }
        request.cancel()
        promise.succeed(1)
        XCTAssertEqual(derived.map { $0.result?.summary }, Array(repeating: "cancelled", count: derived.count))
        XCTAssertEqual(forEachRan.value, 0)
    }

    func testCallbacksWithoutATokenCanNeverBeCancelled() {
        let promise = Promise<Int>()
        let log = EventLog<Int>()
        promise.future.onSuccess(context: immediate) { log.append($0) }
        promise.future.cancel(options: .thisFutureOnly)
        promise.succeed(1)
        XCTAssertEqual(log.all, [1])
    }
}
