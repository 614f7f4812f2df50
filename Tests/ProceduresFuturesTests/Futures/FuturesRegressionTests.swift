import Foundation
import XCTest
@testable import ProceduresFutures
import ProceduresSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A context that queues work until the test runs it: makes "dispatched but not yet run"
/// deterministic.
final class AuditManualContext: ExecutionContext, @unchecked Sendable {
    // @unchecked: `work` is only touched under `lock`.
    private let lock = NSLock()
    private var work: [@Sendable () -> Void] = []

    func execute(_ body: @escaping @Sendable () -> Void) { lock.withLock { work.append(body) } }

    func runAll() {
        while let next = lock.withLock({ work.isEmpty ? nil : work.removeFirst() }) { next() }
    }
}

/// Runs `onDeinit` when released.
final class AuditDeinitProbe: Sendable {
    let onDeinit: @Sendable () -> Void
    init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// The address of a local of the caller's frame (for measuring stack growth).
@inline(never) func auditStackAddress() -> UInt {
    var marker = 0
    return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}

/// Bugs found by the futures/cancellation audit (each failed on the audited commit), now fixed.
final class FuturesRegressionTests: XCTestCase {

    // MARK: - Streams: elements lost on a non-immediate context

    /// A stream handler on a non-immediate context loses the elements that were added just
    /// before the stream finished.
    ///
    /// Expected: every element added before `finish()` reaches every subscriber (the guide:
    /// "Deliveries of one stream are serialised, so with `.immediate` or a serial queue each
    /// subscriber sees elements in order"; `finish()` only ends the stream).
    /// Observed: with a serial queue that has not run yet when `finish()` is called, the
    /// handler sees nothing at all: `[]` instead of `[1, 2, 3]`.
    /// Cause: `StreamSubscription.deliver` (StreamSubscription.swift:22-33) dispatches a closure
    /// that re-checks `isActive` when it runs; `StreamSubscription.finish()`
    /// (StreamSubscription.swift:35-39) sets `onElement = nil` synchronously on the producer's
    /// thread, so every element still queued on the context is silently dropped. The same
    /// happens to derived streams (`map`, `flatMap`, … with the default context, which is
    /// `DispatchQueue.global()`): see the next test.
    func testFixed_streamHandlerOnAQueueLosesElementsAddedJustBeforeFinish() {
        let queue = DispatchQueue(label: "audit.stream.serial")
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

    /// The same loss through a derived stream, with the default (`DispatchQueue.global()`)
    /// context replaced by a manual one to make the interleaving deterministic.
    ///
    /// Expected: `map` passes on every element, then finishes: `[10, 20]`.
    /// Observed: `[]`; the derived stream finishes empty.
    /// Cause: as above (StreamSubscription.swift:25-39); the derived stream's `onFinish`
    /// (`promise.finish()`, FutureStream+Combinators.swift:46) is also dispatched but runs
    /// after the elements' closures were dropped.
    func testFixed_derivedStreamOnAContextFinishesWithoutTheElementsQueuedBeforeFinish() {
        let context = AuditManualContext()
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

    // MARK: - Streams: user objects deallocated under a stripe

    /// A stream with a bounded capacity deallocates the elements it drops while holding the
    /// stream's stripe of `StripedLock`.
    ///
    /// Expected (StripedLock.swift:16-18): "no deallocation of user objects inside `withLock`".
    /// Observed: the elements' deinits run with the stream's stripe held (probed with
    /// `pthread_mutex_trylock` from the deinit, on a single thread). A deinit that touches the
    /// same stream (`isFinished`, `bufferedResults`, `succeed`) or any future/stream sharing the
    /// stripe deadlocks the thread for good (the mutex is not recursive); an element that is
    /// the last reference to a pending `Future` runs `Future.deinit`, which takes a second
    /// stripe (`ConsumerAnchor.settle`).
    /// Cause: `FutureStream.add` calls `state.buffer.append(result)` inside `withLock`
    /// (FutureStream.swift:62-64); `ReplayBuffer.append` drops the oldest elements with
    /// `storage.removeFirst(head)` (ReplayBuffer.swift:15-18), releasing them right there.
    func testFixed_boundedStreamReleasesDroppedElementsUnderItsStripe() {
        let promise = StreamPromise<AuditDeinitProbe>(capacity: 1)
        let mutexAddress = UInt(bitPattern: StripedLock.mutex(for: promise.stream))
        let deinitsUnderLock = Counter()
        let deinits = Counter()
        for _ in 0..<200 {
            promise.succeed(AuditDeinitProbe {
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

    // MARK: - Streams: stack depth

    /// A chain of derived streams recurses once per stage: its stack use grows linearly, so a
    /// long chain (the brief's 100,000 stages; futures are tested at that length) overflows
    /// the stack and kills the process.
    ///
    /// Expected: like futures ("Long chains are stack-safe even with `.immediate`",
    /// Documentation/Futures.md:69), an element reaches the end of a chain of `map`s in
    /// bounded stack depth. Control: the same measurement for a 2,000-stage future chain is a
    /// few hundred bytes.
    /// Observed: ~1.7 KB of stack per stage in a debug build (2,000 stages use ~3.4 MB);
    /// at 100,000 stages that is ~170 MB against an 8 MB main-thread stack. (Checked by hand:
    /// a 100,000-stage `map` chain crashes the test process with SIGSEGV on `succeed`.)
    /// Cause: `FutureStream.add` → `drain` → `StreamSubscription.deliver` → the derived
    /// stream's closure → `StreamPromise.complete` → the next stream's `add` → … all nested
    /// (FutureStream.swift:61-69, 113-139; StreamSubscription.swift:22-28;
    /// FutureStream+Combinators.swift:42-48). `finish()` propagates the same way, and releasing
    /// the head of the chain nests one deinit per stage.
    func testFixed_streamMapChainGrowsTheStackPerStage() {
        let stages = 2_000

        // Control: futures.
        let futurePromise = Promise<Int>()
        var future = futurePromise.future
        for _ in 0..<stages { future = future.map(context: .immediate) { $0 } }
        let futureDeepest = LockedBox<UInt>(0)
        future.onSuccess(context: .immediate) { _ in futureDeepest.mutate { $0 = auditStackAddress() } }
        let futureTop = auditStackAddress()
        futurePromise.succeed(1)
        let futureDepth = Int(futureTop) - Int(futureDeepest.value)

        // Streams.
        let streamPromise = StreamPromise<Int>(capacity: 0)
        var stream = streamPromise.stream
        for _ in 0..<stages { stream = stream.map(context: .immediate) { $0 } }
        let streamDeepest = LockedBox<UInt>(0)
        stream.onSuccess(context: .immediate) { _ in streamDeepest.mutate { $0 = auditStackAddress() } }
        let streamTop = auditStackAddress()
        streamPromise.succeed(1)
        let streamDepth = Int(streamTop) - Int(streamDeepest.value)

        XCTAssertLessThan(futureDepth, 64 * 1024, "control: a future chain is stack-safe")
        XCTAssertLessThan(
            streamDepth, 64 * 1024,
            "a \(stages)-stage stream chain used \(streamDepth) bytes of stack (\(streamDepth / stages) per stage)")
        streamPromise.finish()
    }

    // MARK: - Futures: forceImmediately on a shared future

    /// `.forceImmediately` on a future shared with another consumer completes it as cancelled
    /// for everyone, yet its producer is never asked, not then and not ever.
    ///
    /// Expected (CancelRequestOptions.swift:111-114, Documentation/Futures.md options table:
    /// "`.forceImmediately`: asked, then completed as cancelled at once"; "Forcing is local:
    /// the producer is asked, never forced"): the promise's `onRequestCancel` handler runs,
    /// since the future has completed and no consumer can want its result any more.
    /// Observed: the handler never runs; the producer keeps working for nobody. (A derived
    /// future forced the same way does ask its upstream, through `disposal: .ask`: only a
    /// promise's own handlers are skipped.)
    /// Cause: `FutureCancelToken.cancel` (FutureCancelToken.swift:40-44) delivers the ask, which
    /// the tree rule holds back (the other token is live, FutureState.swift:165), then
    /// `forceCancel` completes the future; `FutureState.complete` (FutureState.swift:141-142)
    /// drops `requestHandlers` unrun.
    func testFixed_forcingASharedPromiseFutureNeverAsksItsProducer() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let otherConsumer = promise.future.cancellationToken()

        promise.future.cancel(options: .forceImmediately)

        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        otherConsumer.cancel()  // the other consumer also asks: too late, nothing happens
        XCTAssertEqual(log.count, 1, "the producer of a force-cancelled future was never asked")
    }

    // MARK: - Futures: Promise.complete(with:) twice

    /// A second `complete(with:)` re-points a pending promise's future to another future and
    /// leaks its cancel vote on the first one: that first future can then never be cancelled
    /// by its remaining consumers, even after the promise and its future are gone.
    ///
    /// Expected: completion is first-wins ("every later attempt ... changes nothing",
    /// Promise.swift:18-19): the second call is ignored (or, at least, the vote on the first
    /// future is withdrawn when it is abandoned), so once `first`'s only other consumer asks,
    /// `first`'s producer is asked.
    /// Observed: `first`'s producer is never asked; and `second`'s result wins instead of
    /// `first`'s (next test).
    /// Cause: `Future._follow` (Future.swift:191-207) attaches as a new voter without checking
    /// that the future already follows something; `FutureState.follow` (FutureState.swift:190-
    /// 199) overwrites `upstream`, returning the old one only to be released: the live vote on
    /// it is neither withdrawn nor remembered, so `abandon`/`complete` later withdraw from
    /// the new upstream only.
    func testFixed_secondCompleteWithLeaksTheVoteOnTheFirstFuture() {
        let log = EventLog<CancelRequestOptions>()
        let first = recordingPromise(log)
        let second = Promise<Int>()
        let firstsOtherConsumer = first.future.cancellationToken()
        do {
            let promise = Promise<Int>()
            promise.complete(with: first.future)
            promise.complete(with: second.future)
        }  // promise and its future released pending: their votes are withdrawn
        firstsOtherConsumer.cancel()  // now the only consumer of `first` asks
        XCTAssertEqual(log.count, 1, "first's producer was never asked: a vote on it leaked")
        withExtendedLifetime(second) {}
    }

    /// The first-wins part of the same defect.
    ///
    /// Expected: `promise.future` takes `first`'s result (1): it was completed with `first`
    /// first, and a later completion attempt changes nothing.
    /// Observed: whichever of the two futures completes first wins (here `second`, 2).
    /// Cause: as above (Future.swift:191-207, FutureState.swift:190-199).
    func testFixed_secondCompleteWithOverridesTheFirst() {
        let first = Promise<Int>()
        let second = Promise<Int>()
        let promise = Promise<Int>()
        promise.complete(with: first.future)
        promise.complete(with: second.future)
        second.succeed(2)
        first.succeed(1)
        XCTAssertEqual(promise.future.result?.summary, "success(1)")
    }

    // MARK: - Streams: cancelToken on flatMap

    /// A stream `flatMap` whose `cancelToken` is cancelled does not finish while an inner
    /// future is pending, and still emits that inner result afterwards.
    ///
    /// Expected (FutureStream+Combinators.swift:28-30): "A `cancelToken` unsubscribes: no
    /// further element is processed and the derived stream finishes."
    /// Observed: `isFinished` stays `false` until the inner future completes (forever if it
    /// never does, so a `for await` over the derived stream hangs), and the inner result is
    /// then added after the cancel.
    /// Cause: cancelling only drops the subscription's closures (FutureStream.swift:93-97);
    /// the derived stream finishes when its `StreamPromise` is released (StreamPromise.swift:
    /// 45-48), but the inner future's `onComplete` closure (FutureStream+Combinators.swift:
    /// 69-72) still holds that promise. `recoverWith` has the same shape (lines 178-181).
    func testFixed_cancelledStreamFlatMapDoesNotFinishWhileAnInnerFutureIsPending() {
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

    // MARK: - Follow-ups to the fixes

    /// A 100,000-stage stream `map` chain delivers, finishes and is released in constant stack
    /// depth (each of the three used to nest once per stage and crash).
    func testFixed_aLongStreamMapChainDeliversFinishesAndIsReleased() {
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

    /// On a concurrent queue, a subscriber's `onFinish` still runs after every element added
    /// before `finish()` has been handled.
    func testFixed_finishOnAConcurrentQueueComesAfterEveryElement() {
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

    /// `complete(with:)` reports whether it took effect: first wins.
    func testFixed_completeWithReportsALateCall() {
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

    /// `[.thisFutureOnly, .forceImmediately]` on a shared promise future also asks its
    /// producer at once; the producer's answer is ignored (the future has completed).
    func testFixed_forcingThisFutureOnlyAsksTheProducerOnceAndIgnoresItsAnswer() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log, response: .complete(.success(9)))
        let otherConsumer = promise.future.cancellationToken()
        promise.future.cancel(options: [.thisFutureOnly, .forceImmediately])
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        otherConsumer.cancel()
        XCTAssertEqual(log.count, 1)
    }

    /// A long-lived cancel token does not accumulate the handlers of stream subscriptions that
    /// have ended.
    func testFixed_streamSubscriptionsLeaveTheirCancelTokenWhenTheyEnd() {
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
