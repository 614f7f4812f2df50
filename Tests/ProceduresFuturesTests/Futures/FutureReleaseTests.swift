import XCTest
@testable import ProceduresFutures

/// Semantic 9, last sentence: a consumer that goes away without asking (its token or its
/// derived future is released) stops voting, and the remaining consumers decide. What was
/// registered on a released future (its closure, handlers, futures derived from it) still runs.
///
/// Releases are made deterministic with optionals set to `nil` (checked through a weak
/// reference), or with `do { }` scopes whose end is the release.
final class FutureReleaseTests: XCTestCase {
    func testTreeRule_releasedDerivedFutureStopsVotingAndTheRemainingTokenDecides() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        var dropped: Future<Int>? = promise.future.map(context: .immediate) { $0 + 1 }
        weak let weakDropped = dropped
        let kept = promise.future.cancellationToken()
        dropped = nil
        XCTAssertNil(weakDropped, "nothing else holds a derived future")
        kept.cancel()
        XCTAssertEqual(log.all, [[]], "the only live consumer asked")
    }

    func testTreeRule_releasedDerivedFutureAfterTheOtherConsumerAskedDecidesOnRelease() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        var dropped: Future<Int>? = promise.future.map(context: .immediate) { $0 + 1 }
        let kept = promise.future.cancellationToken()
        kept.cancel()
        XCTAssertEqual(log.count, 0, "the derived future still wants the value")
        XCTAssertNotNil(dropped)
        dropped = nil
        XCTAssertEqual(log.all, [[]], "decided when the derived future went away")
    }

    func testTreeRule_releasedOneOfTwoDerivedFutures_theOthersCancelDecides() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log, response: .complete(.cancelled))
        var first: Future<Int>? = promise.future.map(context: .immediate) { $0 + 1 }
        let second = promise.future.map(context: .immediate) { $0 + 2 }
        XCTAssertNotNil(first)
        first = nil
        second.cancel()
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(second.result?.summary, "cancelled")
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
    }

    func testTreeRule_releasedIntermediatesOfAChainAllWithdraw() {
        // Only the last stage was named; releasing it releases the whole chain, stage by stage.
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        var tail: Future<Int>? = promise.future
            .map(context: .immediate) { $0 + 1 }
            .flatMap(context: .immediate) { Future(value: $0) }
            .recover(context: .immediate) { _ in 0 }
        let kept = promise.future.cancellationToken()
        kept.cancel()
        XCTAssertEqual(log.count, 0)
        XCTAssertNotNil(tail)
        tail = nil
        XCTAssertEqual(log.count, 1)
    }

    func testTreeRule_releasedDerivedFutureStillRunsItsClosuresAndHandlersOnCompletion() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let ran = EventLog<String>()
        weak var weakMapped: Future<Int>?
        do {
            let mapped = promise.future
                .andThen(context: .immediate) { ran.append("andThen \($0)") }
                .map(context: .immediate) { value -> Int in
                    ran.append("map \(value)")
                    return value * 2
                }
            mapped.forEach(context: .immediate) { ran.append("forEach \($0)") }
            mapped.onComplete(context: .immediate) { ran.append("onComplete \($0.summary)") }
            weakMapped = mapped
        }
        XCTAssertNil(weakMapped, "handlers observe: they do not keep the future alive")
        promise.future.cancel()
        XCTAssertEqual(log.count, 1, "no released stage votes any more")
        XCTAssertEqual(ran.count, 0)
        promise.succeed(1)  // the producer chose to continue
        XCTAssertEqual(ran.all, ["andThen 1", "map 1", "forEach 2", "onComplete success(2)"])
    }

    func testTreeRule_releasedDerivedFutureHandsItsClosureToAHoppingContext() {
        let promise = Promise<Int>()
        let done = expectation(description: "closure and handler ran")
        done.expectedFulfillmentCount = 2
        do {
            let mapped = promise.future.map(context: DispatchQueue.global()) { value -> Int in
                done.fulfill()
                return value + 1
            }
            mapped.onSuccess(context: .immediate) { value in
                XCTAssertEqual(value, 2)
                done.fulfill()
            }
        }
        promise.succeed(1)
        wait(for: [done], timeout: 5)
    }

    func testTreeRule_releasedForcedDerivedFutureNeverRunsItsClosure() {
        let promise = Promise<Int>()
        let ran = Counter()
        var mapped: Future<Int>? = promise.future.map(context: .immediate) { value -> Int in
            ran.increment()
            return value
        }
        mapped?.cancel(options: [.forceImmediately, .thisFutureOnly])
        XCTAssertEqual(mapped?.result?.summary, "cancelled")
        mapped = nil
        promise.succeed(1)
        XCTAssertEqual(ran.value, 0, "completed (forced) before its source: the closure must not run")
    }

    func testTreeRule_releasedSequenceResultWithdrawsFromItsInputs() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        var all: Future<[Int]>? = [promise.future, Future(value: 2)].sequence()
        var zipped: Future<(Int, Int)>? = promise.future.zip(Future(value: 3))
        var first: Future<Int>? = [promise.future].firstCompleted()
        let kept = promise.future.cancellationToken()
        kept.cancel()
        XCTAssertEqual(log.count, 0)
        XCTAssertNotNil(all)
        XCTAssertNotNil(zipped)
        XCTAssertNotNil(first)
        all = nil
        zipped = nil
        first = nil
        XCTAssertEqual(log.count, 1)
    }

    func testTreeRule_releasedFollowerWithdrawsFromTheFutureItFollows() {
        let log = EventLog<CancelRequestOptions>()
        let inner = recordingPromise(log)
        let kept = inner.future.cancellationToken()
        let handled = Counter()
        do {
            let outer = Promise<Int>()
            outer.complete(with: inner.future)
            outer.future.onSuccess(context: .immediate) { _ in handled.increment() }
        }
        kept.cancel()
        XCTAssertEqual(log.count, 1, "the released promise's future no longer votes")
        inner.succeed(1)
        XCTAssertEqual(handled.value, 1, "its handler still ran")
    }

    func testTreeRule_releasedFlatMapResultWithdrawsFromTheFutureItFollows() {
        let log = EventLog<CancelRequestOptions>()
        let inner = recordingPromise(log)
        let kept = inner.future.cancellationToken()
        let source = Promise<Int>()
        var chained: Future<Int>? = source.future.flatMap(context: .immediate) { _ in inner.future }
        source.succeed(1)  // `chained` now follows `inner`
        kept.cancel()
        XCTAssertEqual(log.count, 0)
        XCTAssertNotNil(chained)
        chained = nil
        XCTAssertEqual(log.count, 1)
    }

    func testTreeRule_releasedLongPendingChainDoesNotOverflowTheStack() {
        let length = 100_000
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let stages = Counter()
        let handled = Counter()
        weak var weakTail: Future<Int>?
        do {
            var future = promise.future
            for _ in 0..<length {
                future = future.map(context: .immediate) { value in
                    stages.increment()
                    return value + 1
                }
            }
            future.onSuccess(context: .immediate) { value in
                XCTAssertEqual(value, length)
                handled.increment()
            }
            weakTail = future
        }  // the whole chain is released here, from its tail
        XCTAssertNil(weakTail)
        promise.future.cancel()
        XCTAssertEqual(log.count, 1, "every stage withdrew")
        promise.succeed(0)
        XCTAssertEqual(stages.value, length, "every closure still ran")
        XCTAssertEqual(handled.value, 1)
    }

    func testTreeRule_releasedLongChainOfGhostsIsFreedWithoutRecursionWhenItsSourceIs() {
        // The source never completes: the released chain's stand-ins go with it.
        weak var weakTracked: Tracked?
        do {
            let source = Future<Int>()  // no promise: never completed, never broken
            let tracked = Tracked()
            weakTracked = tracked
            var future = source
            for _ in 0..<100_000 { future = future.map(context: .immediate) { $0 } }
            future.onComplete(context: .immediate) { _ in _ = tracked }
        }
        XCTAssertNil(weakTracked)
    }

    // MARK: Races (ThreadSanitizer)

    func testTreeRule_releasedDerivedFuturesRacingCancelAndCompletion() {
        for _ in 0..<stressIterations(10_000) {
            let promise = Promise<Int>()
            promise.onRequestCancel { _ in .complete(.cancelled) }
            let kept = promise.future.cancellationToken()
            let handled = EventLog<String>()
            let holder = DroppableReference<Future<Int>>(promise.future.map(context: .immediate) { $0 + 1 })
            holder.value?.onComplete(context: .immediate) { handled.append($0.summary) }
            let other = DroppableReference<Future<Int>>(promise.future.map(context: .immediate) { $0 + 2 })
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                switch index {
                case 0: holder.clear()
                case 1: other.clear()
                case 2: kept.cancel()
                default: promise.succeed(1)
                }
            }
            let outcome = promise.future.result?.summary
            XCTAssertTrue(outcome == "success(1)" || outcome == "cancelled", "\(String(describing: outcome))")
            XCTAssertEqual(handled.all, [outcome == "cancelled" ? "cancelled" : "success(2)"],
                           "the released future's handler ran exactly once, with the source's outcome")
        }
    }
}

/// A reference that one thread can drop while others race, for the stress tests.
final class DroppableReference<T: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: T?

    init(_ value: T) { stored = value }

    var value: T? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// Drops the reference outside the lock (its deinit may do work).
    func clear() {
        lock.lock()
        let dropped = stored
        stored = nil
        lock.unlock()
        _ = dropped
    }
}
