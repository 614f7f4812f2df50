import Foundation
import XCTest
@testable import ProceduresFutures

/// Races: cancel against completion, registration against completion, many voters at once.
/// Iteration counts scale with PROCEDURES_STRESS_SCALE.
final class FutureStressTests: XCTestCase {
    func testCancelRacingCompletionHasExactlyOneWinner() {
        for _ in 0..<stressIterations(10_000) {
            let promise = Promise<Int>()
            promise.onRequestCancel { _ in .complete(.cancelled) }
            let outcomes = Counter()
            promise.future.onSuccess(context: .immediate) { _ in outcomes.increment() }
            promise.future.onCancel(context: .immediate) { outcomes.increment() }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { promise.succeed(1) } else { promise.future.cancel() }
            }
            XCTAssertEqual(outcomes.value, 1)
            XCTAssertNotNil(promise.future.result)
        }
    }

    func testForcedCancelRacingCompletionOfAChain() {
        for _ in 0..<stressIterations(10_000) {
            let promise = Promise<Int>()
            let tail = promise.future.map(context: .immediate) { $0 + 1 }.map(context: .immediate) { $0 + 1 }
            let ran = Counter()
            tail.onComplete(context: .immediate) { _ in ran.increment() }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { promise.succeed(1) } else { tail.cancel(options: .forceImmediately) }
            }
            XCTAssertEqual(ran.value, 1)
            let summary = tail.result?.summary
            XCTAssertTrue(summary == "success(3)" || summary == "cancelled", "\(String(describing: summary))")
        }
    }

    func testHandlersRegisteredWhileCompletingAreNeitherLostNorRunTwice() {
        let perThread = 20
        for _ in 0..<stressIterations(4_000) {
            let promise = Promise<Int>()
            let ran = Counter()
            let derived = EventLog<Future<Int>>()
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                if index == 0 {
                    promise.succeed(1)
                } else {
                    for _ in 0..<perThread {
                        promise.future.onComplete(context: .immediate) { _ in ran.increment() }
                        derived.append(promise.future.map(context: .immediate) { $0 })
                    }
                }
            }
            XCTAssertEqual(ran.value, 2 * perThread)
            XCTAssertTrue(derived.all.allSatisfy { $0.result?.value == 1 })
        }
    }

    func testTokenCancelRacingCompletionNeverRunsTwiceAndNeverHangs() {
        for _ in 0..<stressIterations(10_000) {
            let promise = Promise<Int>()
            let request = CancellationRequest()
            let ran = Counter()
            promise.future.onSuccess(context: .immediate, cancelToken: request.token) { _ in ran.increment() }
            let mapped = promise.future.map(context: .immediate, cancelToken: request.token) { value -> Int in
                ran.increment()
                return value
            }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { promise.succeed(1) } else { request.cancel() }
            }
            XCTAssertLessThanOrEqual(ran.value, 2)
            XCTAssertNotNil(mapped.result, "completed one way or the other")
        }
    }

    func testManyConsumersVotingConcurrentlyDecideExactlyOnce() {
        for _ in 0..<stressIterations(10_000) {
            let promise = Promise<Int>()
            let requests = Counter()
            promise.onRequestCancel { _ in
                requests.increment()
                return .continue
            }
            let consumers = (0..<8).map { _ in promise.future.map(context: .immediate) { $0 } }
            DispatchQueue.concurrentPerform(iterations: consumers.count) { consumers[$0].cancel() }
            XCTAssertEqual(requests.value, 1)
        }
    }

    func testNothingLeaksAfterConcurrentCompletion() {
        for _ in 0..<stressIterations(4_000) {
            weak var weakFuture: Future<Int>?
            weak var weakTracked: Tracked?
            do {
                let promise = Promise<Int>()
                let tracked = Tracked()
                weakTracked = tracked
                let derived = promise.future.map(context: .immediate) { value -> Int in
                    _ = tracked
                    return value
                }
                weakFuture = derived
                promise.onRequestCancel { _ in
                    _ = tracked
                    return .continue
                }
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 { promise.succeed(1) } else { derived.cancel() }
                }
            }
            XCTAssertNil(weakFuture)
            XCTAssertNil(weakTracked)
        }
    }

    func testStreamDeliversEveryElementOnceToEachSubscriberUnderConcurrentProducers() {
        for _ in 0..<stressIterations(4_000) {
            let promise = StreamPromise<Int>(capacity: 0)
            let received = Counter()
            let late = Counter()
            promise.stream.onSuccess(context: .immediate) { _ in received.increment() }
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                if index == 2 {
                    promise.stream.onSuccess(context: .immediate) { _ in late.increment() }
                } else {
                    for value in 0..<50 { promise.succeed(value) }
                }
            }
            XCTAssertEqual(received.value, 100)
            XCTAssertLessThanOrEqual(late.value, 100)
        }
    }
}

extension FutureStressTests {
    /// Thousands of live futures share the 64 stripes; handlers that register on, complete
    /// and cancel *other* futures (many on the same stripe), and request handlers answering
    /// `.complete`, never run under a stripe: nothing deadlocks, every handler runs once.
    /// (Each handler touches a leaf future, so the nesting stays one level deep: a handler
    /// that completes the next promise of a 4,096-long relay nests one `complete` per promise
    /// and overflows the stack; that is the user's own recursion.)
    func testReentrantHandlersAcrossFuturesSharingStripes() {
        let count = 4_096
        let sources = (0..<count).map { _ in Promise<Int>() }
        let leaves = (0..<count).map { _ in Promise<Int>() }
        let ran = Counter()
        let leafRan = Counter()
        let requests = Counter()
        for index in 0..<count {
            let leaf = leaves[index]
            leaf.onRequestCancel { _ in
                requests.increment()
                return .complete(.cancelled)
            }
            sources[index].future.onComplete(context: .immediate) { _ in
                ran.increment()
                leaf.future.onComplete(context: .immediate) { _ in leafRan.increment() }
                if index % 2 == 0 { leaf.succeed(index) } else { leaf.future.cancel() }
                sources[(index + 1) % count].future.onComplete(context: .immediate) { _ in }
            }
        }
        DispatchQueue.concurrentPerform(iterations: count) { sources[$0].succeed($0) }
        XCTAssertEqual(ran.value, count)
        XCTAssertEqual(leafRan.value, count)
        XCTAssertEqual(requests.value, count / 2)
    }
}
