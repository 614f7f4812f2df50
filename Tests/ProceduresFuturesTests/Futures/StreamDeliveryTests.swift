import Foundation
import XCTest
@testable import ProceduresFutures
import ProceduresSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How stream elements reach their subscribers: every element added before `finish()` is
/// delivered, whatever the context, and ending a subscription lets go of what it held.
final class StreamDeliveryTests: XCTestCase {
    /// Every element added before `finish()` reaches a subscriber whose context has not run yet:
    /// `finish()` only ends the stream, it does not drop what is queued on the subscriber's context
    /// (deliveries of one stream are serialised, so a serial queue sees them in order, then the
    /// finish).
    func testElementsAddedBeforeFinishReachAHandlerOnAQueue() {
        let queue = DispatchQueue(label: "stream.serial")
        let received = EventLog<Int>()
        let finished = expectation(description: "finish handler ran")
        let promise = StreamPromise<Int>()
        promise.stream.onSuccess(context: queue) { received.append($0) }
        promise.stream.onFinish(context: queue) { finished.fulfill() }

        queue.suspend()  // the queue is busy elsewhere while the producer runs
        promise.succeed(1)
        promise.succeed(2)
        promise.succeed(3)
        promise.finish()
        queue.resume()

        wait(for: [finished], timeout: 5)
        queue.sync {}
        XCTAssertEqual(received.all, [1, 2, 3], "elements added before finish() were dropped")
    }

    /// The same through a derived stream, with the default (`DispatchQueue.global()`) context
    /// replaced by a manual one to make the interleaving deterministic: `map` passes on every
    /// element, then finishes.
    func testDerivedStreamOnAContextPassesOnElementsQueuedBeforeFinish() {
        let context = ManualContext()
        let source = StreamPromise<Int>()
        let mapped = source.stream.map(context: context) { $0 * 10 }
        let received = EventLog<Int>()
        mapped.onSuccess(context: .immediate) { received.append($0) }

        source.succeed(1)
        source.succeed(2)
        source.finish()
        context.runAll()

        XCTAssertTrue(mapped.isFinished)
        XCTAssertEqual(received.all, [10, 20], "the derived stream lost its elements")
    }

    /// A stream with a bounded capacity frees the elements it drops after leaving its stripe of
    /// `StripedLock`: no user object is deallocated inside `withLock`, because a deinit that touches
    /// the same stream (or any future or stream on the same stripe) would deadlock on the
    /// non-recursive mutex. Probed with `pthread_mutex_trylock` from the elements' deinit.
    func testBoundedStreamReleasesDroppedElementsOutsideItsStripe() {
        let promise = StreamPromise<DeinitProbe>(capacity: 1)
        let mutexAddress = UInt(bitPattern: StripedLock.mutex(for: promise.stream))
        let deinitsUnderLock = Counter()
        let deinits = Counter()
        for _ in 0..<200 {
            promise.succeed(DeinitProbe {
                deinits.increment()
                let mutex = UnsafeMutablePointer<pthread_mutex_t>(bitPattern: mutexAddress)!
                if pthread_mutex_trylock(mutex) == 0 {
                    pthread_mutex_unlock(mutex)
                } else {
                    deinitsUnderLock.increment()
                }
            })
        }
        XCTAssertGreaterThan(deinits.value, 100, "the buffer should have dropped most elements")
        XCTAssertEqual(deinitsUnderLock.value, 0, "elements were deallocated while the stream's stripe was held")
    }

    /// A `cancelToken` unsubscribes a stream `flatMap`: the derived stream finishes at once, even
    /// while an inner future is pending, and that inner result is never emitted (a pending inner
    /// future's handler must not keep the derived stream's promise, and so the stream, open).
    func testCancelledStreamFlatMapFinishesAtOnceAndEmitsNothingMore() {
        let source = StreamPromise<Int>()
        let inner = Promise<Int>()
        let request = CancellationRequest()
        let derived = source.stream.flatMap(context: .immediate, cancelToken: request.token) { _ in inner.future }
        let received = EventLog<String>()
        derived.onComplete(context: .immediate) { received.append($0.summary) }

        source.succeed(1)
        request.cancel()
        XCTAssertTrue(derived.isFinished, "the unsubscribed flatMap stream did not finish")

        inner.succeed(5)
        XCTAssertEqual(received.all, [], "an element was emitted after the cancel")
        withExtendedLifetime(source) {}
    }

    /// On a concurrent queue, a subscriber's `onFinish` still runs after every element added
    /// before `finish()` has been handled.
    func testFinishOnAConcurrentQueueComesAfterEveryElement() {
        let count = 500
        let promise = StreamPromise<Int>(capacity: 0)
        let handled = Counter()
        let seenAtFinish = LockedBox<Int>(-1)
        let finished = expectation(description: "finished")
        promise.stream.onSuccess(context: DispatchQueue.global()) { _ in handled.increment() }
        promise.stream.onComplete(context: DispatchQueue.global()) { _ in }
        let mapped = promise.stream.map(context: DispatchQueue.global()) { $0 }
        let mappedCount = Counter()
        mapped.onSuccess(context: .immediate) { _ in mappedCount.increment() }
        mapped.onFinish(context: .immediate) {
            seenAtFinish.mutate { $0 = mappedCount.value }
            finished.fulfill()
        }
        for value in 0..<count { promise.succeed(value) }
        promise.finish()
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(seenAtFinish.value, count)
    }

    /// A long-lived cancel token does not accumulate the handlers of stream subscriptions that
    /// have ended.
    func testStreamSubscriptionsLeaveTheirCancelTokenWhenTheyEnd() {
        let request = CancellationRequest()
        for _ in 0..<100 {
            let promise = StreamPromise<Int>()
            promise.stream.onSuccess(context: .immediate, cancelToken: request.token) { _ in }
            _ = promise.stream.map(context: .immediate, cancelToken: request.token) { $0 }
            promise.succeed(1)
            promise.finish()
        }
        XCTAssertEqual(request.token.registeredHandlerCount, 0)
        withExtendedLifetime(request) {}
    }
}
