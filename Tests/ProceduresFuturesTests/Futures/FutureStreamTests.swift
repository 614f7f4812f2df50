import Foundation
import XCTest
@testable import ProceduresFutures

/// FutureStream / StreamPromise: capacity replay, handlers, combinators, token unsubscription
/// (as in SimpleFutures) and the AsyncSequence view.
final class FutureStreamTests: XCTestCase {
    private let immediate = ImmediateExecutionContext()

    func testHandlersSeeEveryElementInOrder() {
        let promise = StreamPromise<Int>()
        let log = EventLog<String>()
        promise.stream.onComplete(context: immediate) { log.append($0.summary) }
        promise.succeed(1)
        promise.fail(FutureTestError())
        promise.succeed(2)
        XCTAssertEqual(log.all, ["success(1)", "failure(FutureTestError(code: 1))", "success(2)"])
    }

    func testLateSubscriberGetsTheLastCapacityElementsReplayedFirst() {
        let promise = StreamPromise<Int>(capacity: 3)
        for value in 1...10 { promise.succeed(value) }
        let log = EventLog<Int>()
        promise.stream.onSuccess(context: immediate) { log.append($0) }
        promise.succeed(11)
        XCTAssertEqual(log.all, [8, 9, 10, 11])
        XCTAssertEqual(promise.stream.bufferedResults.compactMap(\.value), [9, 10, 11])
    }

    func testDefaultCapacityKeepsEverythingAndZeroKeepsNothing() {
        let unbounded = StreamPromise<Int>()
        for value in 0..<200 { unbounded.succeed(value) }
        XCTAssertEqual(unbounded.stream.bufferedResults.count, 200)
        XCTAssertEqual(unbounded.stream.capacity, Int.max)
        let none = StreamPromise<Int>(capacity: 0)
        none.succeed(1)
        XCTAssertTrue(none.stream.bufferedResults.isEmpty)
    }

    func testDerivedStreamsInheritTheCapacity() {
        let promise = StreamPromise<Int>(capacity: 2)
        let mapped = promise.stream.map(context: immediate) { $0 * 10 }
        for value in 1...5 { promise.succeed(value) }
        XCTAssertEqual(mapped.capacity, 2)
        XCTAssertEqual(mapped.bufferedResults.compactMap(\.value), [40, 50])
    }

    func testCancelledTokenStopsDeliveryButKeepsWhatWasDelivered() {
        let promise = StreamPromise<Int>()
        let request = CancellationRequest()
        let log = EventLog<Int>()
        promise.stream.onSuccess(context: immediate, cancelToken: request.token) { log.append($0) }
        promise.succeed(1)
        request.cancel()
        promise.succeed(2)
        XCTAssertEqual(log.all, [1])
    }

    func testTokenOnADerivedStreamUnsubscribesAndFinishesIt() {
        let promise = StreamPromise<Int>()
        let request = CancellationRequest()
        let mapped = promise.stream.map(context: immediate, cancelToken: request.token) { $0 + 1 }
        promise.succeed(1)
        request.cancel()
        promise.succeed(2)
        XCTAssertEqual(mapped.bufferedResults.compactMap(\.value), [2])
        XCTAssertTrue(mapped.isFinished)
    }

    func testCombinators() {
        let promise = StreamPromise<Int>()
        let filtered = promise.stream.withFilter(context: immediate) { $0 % 2 == 0 }
        let recovered = promise.stream.recover(context: immediate) { _ in -1 }
        let remapped = promise.stream.mapError(context: immediate) { _ in FutureTestError(code: 9) }
        let log = EventLog<Int>()
        let passed = promise.stream.andThen(context: immediate) { log.append($0) }
        promise.stream.forEach(context: immediate) { log.append($0 * 100) }
        promise.succeed(1)
        promise.succeed(2)
        promise.fail(FutureTestError())
        XCTAssertEqual(filtered.bufferedResults.map(\.summary), ["failure(noSuchElement)", "success(2)", "failure(FutureTestError(code: 1))"])
        XCTAssertEqual(recovered.bufferedResults.compactMap(\.value), [1, 2, -1])
        XCTAssertEqual(remapped.bufferedResults.last?.error as? FutureTestError, FutureTestError(code: 9))
        XCTAssertEqual(passed.bufferedResults.count, 3)
        XCTAssertEqual(log.all, [1, 100, 2, 200])
    }

    func testFlatMapToFuturesAndToStreams() {
        let promise = StreamPromise<Int>()
        let inner = Promise<String>()
        let viaFutures = promise.stream.flatMap(context: immediate) { value -> Future<String> in
            value == 1 ? inner.future : Future(value: "\(value)")
        }
        let viaStreams = promise.stream.flatMap(context: immediate) { value -> FutureStream<Int> in
            let nested = StreamPromise<Int>()
            nested.succeed(value)
            nested.succeed(value * 10)
            return nested.stream
        }
        promise.succeed(1)
        promise.succeed(2)
        XCTAssertEqual(viaFutures.bufferedResults.compactMap(\.value), ["2"], "completion order")
        inner.succeed("one")
        XCTAssertEqual(viaFutures.bufferedResults.compactMap(\.value), ["2", "one"])
        XCTAssertEqual(viaStreams.bufferedResults.compactMap(\.value), [1, 10, 2, 20])
        promise.finish()
        XCTAssertTrue(viaFutures.isFinished)
        XCTAssertTrue(viaStreams.isFinished, "inner streams were released, so they finished")
    }

    func testFlatMapFinishesOnlyAfterPendingInnerFutures() {
        let promise = StreamPromise<Int>()
        let inner = Promise<Int>()
        let flat = promise.stream.flatMap(context: immediate) { _ in inner.future }
        promise.succeed(1)
        promise.finish()
        XCTAssertFalse(flat.isFinished)
        inner.succeed(5)
        XCTAssertTrue(flat.isFinished)
        XCTAssertEqual(flat.bufferedResults.compactMap(\.value), [5])
    }

    func testFinishIgnoresLaterElementsAndReleasedPromiseFinishes() {
        let promise = StreamPromise<Int>()
        let finished = EventLog<Bool>()
        promise.stream.onFinish(context: immediate) { finished.append(true) }
        XCTAssertTrue(promise.succeed(1))
        XCTAssertTrue(promise.finish())
        XCTAssertFalse(promise.succeed(2))
        XCTAssertFalse(promise.finish())
        XCTAssertEqual(finished.all, [true])

        var dropped: StreamPromise<Int>? = StreamPromise()
        let stream = dropped!.stream
        dropped = nil
        XCTAssertTrue(stream.isFinished)
    }

    func testProducerReenteringFromAHandlerIsDeliveredInOrderWithoutRecursion() {
        let promise = StreamPromise<Int>(capacity: 0)
        let log = EventLog<Int>()
        promise.stream.onSuccess(context: immediate) { value in
            log.append(value)
            if value < 10_000 { promise.succeed(value + 1) }
        }
        promise.succeed(0)
        XCTAssertEqual(log.count, 10_001)
        XCTAssertEqual(log.all.last, 10_000)
    }

    func testCompletingAStreamWithAFutureAndAnotherStream() {
        let promise = StreamPromise<Int>()
        let source = StreamPromise<Int>()
        source.succeed(1)
        promise.complete(with: source.stream)
        promise.complete(with: Future(value: 2))
        source.succeed(3)
        XCTAssertEqual(promise.stream.bufferedResults.compactMap(\.value), [1, 2, 3])
    }

    func testAsyncSequenceViewReplaysThenEndsWhenFinished() async {
        let promise = StreamPromise<Int>(capacity: 2)
        promise.succeed(1)
        promise.succeed(2)
        promise.succeed(3)
        let results = promise.stream.results()  // subscribes now: replays 2 and 3
        let collected = Task {
            var values: [Int] = []
            for await result in results { values.append(result.value ?? -1) }
            return values
        }
        promise.succeed(4)
        promise.finish()
        let values = await collected.value
        XCTAssertEqual(values, [2, 3, 4], "replayed first, then live, then the end")
    }

    func testThrowingAsyncSequenceThrowsTheFirstFailure() async {
        let promise = StreamPromise<Int>()
        promise.succeed(1)
        promise.fail(FutureTestError(code: 3))
        promise.succeed(2)
        var values: [Int] = []
        do {
            for try await value in promise.stream.values() { values.append(value) }
            XCTFail("should have thrown")
        } catch {
            XCTAssertEqual(error as? FutureTestError, FutureTestError(code: 3))
        }
        XCTAssertEqual(values, [1])
    }
}

extension FutureStreamTests {
    /// Cancelling the Task that iterates a stream ends the loop.
    func testCancellingTheIteratingTaskEndsTheAsyncSequence() async {
        let promise = StreamPromise<Int>()
        promise.succeed(1)
        let firstSeen = expectation(description: "first element")
        let task = Task {
            var seen: [Int] = []
            for await result in promise.stream.results() {
                if case .success(let value) = result { seen.append(value) }
                if seen.count == 1 { firstSeen.fulfill() }
            }
            return seen
        }
        await fulfillment(of: [firstSeen], timeout: 5)
        task.cancel()
        let seen = await task.value
        XCTAssertEqual(seen, [1])
        XCTAssertTrue(promise.succeed(2))  // the producer is unaffected
    }
}
