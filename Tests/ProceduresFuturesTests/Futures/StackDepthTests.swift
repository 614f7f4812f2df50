import Foundation
import XCTest
@testable import ProceduresFutures

/// Long chains must not grow the stack, with the immediate context in particular.
final class StackDepthTests: XCTestCase {
    private let length = 100_000

    func testLongMapChainOnACompletedFuture() {
        var future = Future(value: 0)
        for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongMapChainOnAPendingFuture() {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
        XCTAssertNil(future.result)
        promise.succeed(0)
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongFlatMapChainOnAPendingFuture() {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<length { future = future.flatMap(context: .immediate) { Future(value: $0 + 1) } }
        promise.succeed(0)
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongFlatMapChainOnACompletedFuture() {
        var future = Future(value: 0)
        for _ in 0..<length { future = future.flatMap(context: .immediate) { Future(value: $0 + 1) } }
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongChainOfPendingInnerFuturesCompletedInOrder() {
        // Each flatMap returns a future that is still pending; completing them one by one.
        let promises = (0..<length).map { _ in Promise<Int>() }
        let root = Promise<Int>()
        var future = root.future
        for index in 0..<length {
            future = future.flatMap(context: .immediate) { _ in promises[index].future }
        }
        root.succeed(0)
        for (index, promise) in promises.enumerated() { promise.succeed(index) }
        XCTAssertEqual(future.result?.value, length - 1)
    }

    func testCancelRequestFromTheTailOfALongPendingChainReachesTheHead() {
        let promise = Promise<Int>()
        promise.onRequestCancel { _ in .complete(.cancelled) }
        var future = promise.future
        for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
        future.cancel()
        XCTAssertEqual(future.result?.summary, "cancelled")
    }

    func testAbandonedLongPendingChainIsReleasedWithoutRecursion() {
        weak var weakTail: Future<Int>?
        do {
            let promise = Promise<Int>()
            var future = promise.future
            for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
            weakTail = future
        }
        XCTAssertNil(weakTail)
    }
}

extension StackDepthTests {
    /// A chain of derived streams delivers an element in bounded stack depth, as a chain of futures
    /// does: each stage hands the element to the next through a loop rather than a nested call, so
    /// 2,000 stages use no more stack than a handful (a nested chain used about 1.7 KB per stage in
    /// a debug build and overflowed the 8 MB main-thread stack near 5,000 stages).
    func testStreamMapChainUsesBoundedStack() {
        let stages = 2_000

        // Control: futures.
        let futurePromise = Promise<Int>()
        var future = futurePromise.future
        for _ in 0..<stages { future = future.map(context: .immediate) { $0 } }
        let futureDeepest = LockedBox<UInt>(0)
        future.onSuccess(context: .immediate) { _ in futureDeepest.mutate { $0 = stackAddress() } }
        let futureTop = stackAddress()
        futurePromise.succeed(1)
        let futureDepth = Int(futureTop) - Int(futureDeepest.value)

        // Streams.
        let streamPromise = StreamPromise<Int>(capacity: 0)
        var stream = streamPromise.stream
        for _ in 0..<stages { stream = stream.map(context: .immediate) { $0 } }
        let streamDeepest = LockedBox<UInt>(0)
        stream.onSuccess(context: .immediate) { _ in streamDeepest.mutate { $0 = stackAddress() } }
        let streamTop = stackAddress()
        streamPromise.succeed(1)
        let streamDepth = Int(streamTop) - Int(streamDeepest.value)

        XCTAssertLessThan(futureDepth, 64 * 1024, "control: a future chain is stack-safe")
        XCTAssertLessThan(
            streamDepth, 64 * 1024,
            "a \(stages)-stage stream chain used \(streamDepth) bytes of stack (\(streamDepth / stages) per stage)")
        streamPromise.finish()
    }

    /// A 100,000-stage stream `map` chain delivers, finishes and is released in constant stack
    /// depth: delivery, `finish()` and the release of the head each walk the chain in a loop.
    func testLongStreamMapChainDeliversFinishesAndIsReleased() {
        // 100,000 by default; even scaled down (ThreadSanitizer runs at 0.2) a recursive
        // chain would need far more than the 8 MB main-thread stack.
        let stages = stressIterations(100_000)
        var promise: StreamPromise<Int>? = StreamPromise<Int>(capacity: 0)
        weak let weakHead = promise!.stream
        weak var weakTail: FutureStream<Int>?
        let received = EventLog<Int>()
        let finished = Counter()
        do {
            var stream = promise!.stream
            for _ in 0..<stages { stream = stream.map(context: .immediate) { $0 + 1 } }
            stream.onSuccess(context: .immediate) { received.append($0) }
            stream.onFinish(context: .immediate) { finished.increment() }
            weakTail = stream
        }
        promise!.succeed(0)
        XCTAssertEqual(received.all, [stages])
        promise!.finish()
        XCTAssertEqual(finished.value, 1)
        promise = nil
        XCTAssertNil(weakHead)
        XCTAssertNil(weakTail)

        // Released without finishing first: the promise's deinit finishes the whole chain.
        var pending: StreamPromise<Int>? = StreamPromise<Int>(capacity: 0)
        weak var weakPendingTail: FutureStream<Int>?
        let pendingFinished = Counter()
        do {
            var stream = pending!.stream
            for _ in 0..<stages { stream = stream.map(context: .immediate) { $0 } }
            stream.onFinish(context: .immediate) { pendingFinished.increment() }
            weakPendingTail = stream
        }
        pending = nil
        XCTAssertEqual(pendingFinished.value, 1)
        XCTAssertNil(weakPendingTail)
    }

    /// Chains of 30,000 single-input `firstCompleted` / `sequence` stages: cancelling from
    /// the tail reaches the head, completion reaches the tail, releasing does not recurse.
    func testLongChainsOfManyInputCombinatorsAreStackSafe() {
        let stages = 30_000  // recursion would overflow after a few thousand
        let log = EventLog<CancelRequestOptions>()
        let head = recordingPromise(log, response: .complete(.cancelled))
        var tail = head.future
        for stage in 0..<stages {
            tail = stage % 2 == 0 ? [tail].firstCompleted() : [tail].sequence().map(context: .immediate) { $0[0] }
        }
        let done = Counter()
        tail.onCancel(context: .immediate) { done.increment() }
        tail.cancel()
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(done.value, 1)

        // Released pending (nobody asks): the head sees every vote withdrawn, no recursion.
        let other = Promise<Int>()
        var released: Future<Int>? = other.future
        for _ in 0..<stages { released = [released!].firstCompleted() }
        released = nil
        XCTAssertTrue(other.succeed(1))
    }
}
