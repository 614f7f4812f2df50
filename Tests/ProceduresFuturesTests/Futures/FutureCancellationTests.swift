import Foundation
import XCTest
@testable import ProceduresFutures

/// Cancel requests taken from futures: what FutureKit guarantees. Where this
/// library's tree rule differs from FutureKit's default, the test is named after the rule.
final class FutureCancellationTests: XCTestCase {
    // MARK: Basic token behaviour

    func testHandlerReceivesTheRequestOnceWithItsOptions() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let token = promise.future.cancellationToken()
        token.cancel(options: .thisFutureOnly)
        XCTAssertEqual(log.all, [.thisFutureOnly])
        XCTAssertNil(promise.future.result, "a request is not a completion")
    }

    func testCancellingATokenTwiceDoesNothingTheSecondTime() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let token = promise.future.cancellationToken()
        XCTAssertFalse(token.isCancellationRequested)
        token.cancel()
        token.cancel()
        XCTAssertTrue(token.isCancellationRequested)
        XCTAssertEqual(log.count, 1)
    }

    func testPromiseWithoutHandlerIgnoresTheRequestAndCompletesNormally() {
        let promise = Promise<Int>()
        promise.future.cancel()
        XCTAssertNil(promise.future.result)
        promise.succeed(1)
        XCTAssertEqual(promise.future.result?.summary, "success(1)")
    }

    func testCancellingACompletedFutureChangesNothingEvenWhenForced() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        promise.succeed(1)
        promise.future.cancel(options: .forceImmediately)
        XCTAssertEqual(log.count, 0)
        XCTAssertEqual(promise.future.result?.summary, "success(1)")
    }

    func testSeveralHandlersRunInRegistrationOrderOnce() {
        let promise = Promise<Int>()
        let log = EventLog<Int>()
        for index in 0..<3 {
            promise.onRequestCancel { _ in
                log.append(index)
                return .continue
            }
        }
        promise.future.cancel()
        promise.future.cancel()
        XCTAssertEqual(log.all, [0, 1, 2])
    }

    func testARequestNeverGuaranteesACancelledResult() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        promise.future.cancel()
        promise.succeed(2)
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(promise.future.result?.summary, "success(2)")
    }

    // MARK: onRequestCancel responses

    func testContinueKeepsTheFuturePendingUntilThePromiseConfirms() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log, response: .continue)
        promise.future.cancel()
        XCTAssertNil(promise.future.result)
        promise.cancel()
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
    }

    func testCompleteCancelledCompletesAtOnceAndRunsCancelHandlers() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log, response: .complete(.cancelled))
        let cancelled = EventLog<Bool>()
        promise.future.onCancel(context: .immediate) { cancelled.append(true) }
        promise.future.cancel()
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        XCTAssertEqual(cancelled.all, [true])
    }

    func testCompleteWithValueOrErrorCompletesWithThatInsteadOfCancelled() {
        let log = EventLog<CancelRequestOptions>()
        let succeeding = recordingPromise(log, response: .complete(.success(9)))
        succeeding.future.cancel()
        XCTAssertEqual(succeeding.future.result?.summary, "success(9)")
        let failing = recordingPromise(log, response: .complete(.failure(FutureTestError())))
        failing.future.cancel()
        XCTAssertEqual(failing.future.result?.error as? FutureTestError, FutureTestError())
    }

    func testFutureCompletedWithAnotherForwardsLaterRequestsToIt() {
        let log = EventLog<CancelRequestOptions>()
        let inner = recordingPromise(log, response: .complete(.cancelled))
        let outer = Promise<Int>()
        outer.complete(with: inner.future)
        outer.future.cancel()
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(outer.future.result?.summary, "cancelled")
    }

    func testHandlerMayCompleteThePromiseItselfWithoutDeadlockFromAnyThread() {
        let promise = Promise<Int>()
        let weakPromise = WeakBox(promise)
        promise.onRequestCancel { _ in
            weakPromise.value?.fail(FutureTestError(code: 7))  // re-enters the promise: no lock is held
            return .complete(.cancelled)                 // loses: the handler completed first
        }
        let done = expectation(description: "cancelled from another thread")
        DispatchQueue.global().async {
            promise.future.cancel()
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(promise.future.result?.error as? FutureTestError, FutureTestError(code: 7))
    }

    func testHandlerAddedAfterADecidedRequestRunsAtOnce() {
        let promise = Promise<Int>()
        promise.future.cancel()
        promise.onRequestCancel { _ in .complete(.cancelled) }
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
    }

    // MARK: Chains

    func testRequestOnDerivedFutureIsForwardedAndTheBlockNeverRuns() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let ran = Counter()
        let derived = promise.future.map(context: .immediate) { value -> Int in
            ran.increment()
            return value
        }
        derived.cancel()
        XCTAssertEqual(log.all, [[]], "forwarded as a plain request")
        XCTAssertNil(derived.result, "the derived future waits for its source")
        promise.cancel()
        XCTAssertEqual(derived.result?.summary, "cancelled")
        XCTAssertEqual(ran.value, 0)
    }

    func testRequestFromTheTailOfAChainReachesTheHeadAndFlowsBackDown() {
        let promise = Promise<Int>()
        promise.onRequestCancel { _ in .complete(.cancelled) }
        let b = promise.future.map(context: .immediate) { $0 + 1 }
        let c = b.map(context: .immediate) { $0 + 1 }
        c.cancellationToken().cancel()
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        XCTAssertEqual(b.result?.summary, "cancelled")
        XCTAssertEqual(c.result?.summary, "cancelled")
    }

    func testRequestReachesTheFutureReturnedInsideFlatMapNotTheCompletedSource() {
        let sourceLog = EventLog<CancelRequestOptions>()
        let innerLog = EventLog<CancelRequestOptions>()
        let source = recordingPromise(sourceLog)
        let inner = recordingPromise(innerLog, response: .complete(.cancelled))
        let chained = source.future.flatMap(context: .immediate) { _ in inner.future }
        source.succeed(1)
        chained.cancel()
        XCTAssertEqual(sourceLog.count, 0)
        XCTAssertEqual(innerLog.count, 1)
        XCTAssertEqual(chained.result?.summary, "cancelled")
    }

    func testRequestMadeBeforeFlatMapRanIsPassedOnToTheReturnedFuture() {
        // The source ignores the request and succeeds; the request then reaches the future
        // that flatMap's closure returns, since that is what is running now.
        let source = Promise<Int>()
        let innerLog = EventLog<CancelRequestOptions>()
        let inner = recordingPromise(innerLog, response: .complete(.cancelled))
        let chained = source.future.flatMap(context: .immediate) { _ in inner.future }
        chained.cancel()
        source.succeed(1)
        XCTAssertEqual(innerLog.count, 1)
        XCTAssertEqual(chained.result?.summary, "cancelled")
    }

    func testThisFutureOnlyDoesNotForwardAndLeavesADerivedFuturePending() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let derived = promise.future.map(context: .immediate) { $0 }
        derived.cancel(options: .thisFutureOnly)
        XCTAssertEqual(log.count, 0)
        XCTAssertNil(derived.result)
        promise.succeed(3)
        XCTAssertEqual(derived.result?.summary, "success(3)")
    }

    func testThisFutureOnlyWithForceCancelsOnlyTheDerivedFuture() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let ran = Counter()
        let derived = promise.future.map(context: .immediate) { value -> Int in
            ran.increment()
            return value
        }
        derived.cancel(options: [.thisFutureOnly, .forceImmediately])
        XCTAssertEqual(derived.result?.summary, "cancelled")
        XCTAssertEqual(log.count, 0, "the producer is not even asked")
        promise.succeed(4)
        XCTAssertEqual(promise.future.result?.summary, "success(4)")
        XCTAssertEqual(ran.value, 0)
    }

    func testForceWithoutHandlerCompletesCancelledAndIgnoresTheProducersLateResult() {
        let promise = Promise<Int>()
        promise.future.cancel(options: .forceImmediately)
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        XCTAssertFalse(promise.succeed(1))
    }

    // MARK: Trees: here the tree rule is the default

    func testTreeRule_sharedParentIsNotAskedWhileASiblingStillWantsIt() {
        let log = EventLog<CancelRequestOptions>()
        let shared = recordingPromise(log, response: .complete(.cancelled))
        let first = shared.future.map(context: .immediate) { $0 + 1 }
        let second = shared.future.map(context: .immediate) { $0 + 2 }
        second.cancel()
        XCTAssertEqual(log.count, 0, "FutureKit would ask here; the tree rule does not")
        shared.succeed(1)
        XCTAssertEqual(first.result?.summary, "success(2)")
        XCTAssertEqual(second.result?.summary, "success(3)")
    }

    func testTreeRule_sharedParentIsAskedOnceEveryConsumerHasAsked() {
        let log = EventLog<CancelRequestOptions>()
        let shared = recordingPromise(log, response: .complete(.cancelled))
        let first = shared.future.map(context: .immediate) { $0 }
        let second = shared.future.map(context: .immediate) { $0 }
        let direct = shared.future.cancellationToken()
        second.cancel()
        first.cancel()
        XCTAssertEqual(log.count, 0, "the direct token is a consumer too")
        direct.cancel()
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(first.result?.summary, "cancelled")
        XCTAssertEqual(second.result?.summary, "cancelled")
    }

    func testTreeRule_releasedTokenStopsCountingAndTheRemainingConsumersDecide() {
        let log = EventLog<CancelRequestOptions>()
        let shared = recordingPromise(log)
        var first: FutureCancelToken? = shared.future.cancellationToken()
        let second = shared.future.cancellationToken()
        second.cancel()
        XCTAssertEqual(log.count, 0)
        XCTAssertNotNil(first)
        first = nil
        XCTAssertEqual(log.all, [[]], "decided when the other consumer went away")
    }

    func testTreeRule_releasedConsumerWithoutAnyAskerCancelsNothing() {
        let log = EventLog<CancelRequestOptions>()
        let shared = recordingPromise(log)
        var token: FutureCancelToken? = shared.future.cancellationToken()
        XCTAssertNotNil(token)
        token = nil
        XCTAssertEqual(log.count, 0)
    }

    func testTreeRule_aSingleConsumerIsForwardedAtOnce() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        promise.future.map(context: .immediate) { $0 }.cancel()
        XCTAssertEqual(log.count, 1)
    }

    func testTreeRule_plainHandlersObserveButDoNotVote() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        promise.future.onSuccess(context: .immediate) { _ in }
        promise.future.cancel()
        XCTAssertEqual(log.count, 1)
    }

    func testTreeRule_forceIsLocal_forcingOneBranchLeavesSharedParentAndSiblingRunning() {
        let log = EventLog<CancelRequestOptions>()
        let shared = recordingPromise(log, response: .complete(.cancelled))
        let first = shared.future.map(context: .immediate) { $0 + 1 }
        let second = shared.future.map(context: .immediate) { $0 + 2 }
        second.cancel(options: .forceImmediately)
        XCTAssertEqual(second.result?.summary, "cancelled")
        XCTAssertEqual(log.count, 0, "FutureKit would force the parent here; force stays local")
        XCTAssertNil(shared.future.result)
        shared.succeed(1)
        XCTAssertEqual(first.result?.summary, "success(2)")
    }

    func testTreeRule_forcedBranchStillCountsAsAskingWhenTheSiblingAsksLater() {
        let log = EventLog<CancelRequestOptions>()
        let shared = recordingPromise(log, response: .complete(.cancelled))
        let first = shared.future.map(context: .immediate) { $0 }
        let second = shared.future.map(context: .immediate) { $0 }
        second.cancel(options: .forceImmediately)
        first.cancel()
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(first.result?.summary, "cancelled")
    }

    func testSequenceForwardsARequestToEveryInput() {
        let log = EventLog<CancelRequestOptions>()
        let promises = (0..<3).map { _ in recordingPromise(log, response: .complete(.cancelled)) }
        let all = promises.map(\.future).sequence()
        all.cancel()
        XCTAssertEqual(log.count, 3)
        XCTAssertEqual(all.result?.summary, "cancelled")
    }

    // MARK: Combinators registered with a CancellationToken (a cancelled token completes them as cancelled)

    func testCombinatorWithCancelledTokenNeverRunsAndCompletesAsCancelled() {
        let request = CancellationRequest()
        let promise = Promise<Int>()
        let ran = Counter()
        let mapped = promise.future.map(context: .immediate, cancelToken: request.token) { value -> Int in
            ran.increment()
            return value
        }
        let recovered = promise.future.recover(context: .immediate, cancelToken: request.token) { _ in
            ran.increment()
            return 0
        }
        request.cancel()
        XCTAssertEqual(mapped.result?.summary, "cancelled")
        XCTAssertEqual(recovered.result?.summary, "cancelled")
        promise.succeed(1)
        XCTAssertEqual(ran.value, 0)
    }

    func testCombinatorCancelledByTokenAsksItsSourceToCancel() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let request = CancellationRequest()
        _ = promise.future.map(context: .immediate, cancelToken: request.token) { $0 }
        request.cancel()
        XCTAssertEqual(log.count, 1)
    }

    func testCombinatorWithAlreadyCancelledTokenIsCancelledAtOnce() {
        let request = CancellationRequest()
        request.cancel()
        let mapped = Future(value: 1).flatMap(context: .immediate, cancelToken: request.token) { Future(value: $0) }
        XCTAssertEqual(mapped.result?.summary, "cancelled")
    }

    func testTokenOfAReleasedRequestNeverCancelsAndIsForgottenByTheFuture() {
        var request: CancellationRequest? = CancellationRequest()
        let token = request!.token
        let promise = Promise<Int>()
        let mapped = promise.future.map(context: .immediate, cancelToken: token) { $0 * 3 }
        request = nil
        XCTAssertTrue(token.isCompleted)
        promise.succeed(2)
        XCTAssertEqual(mapped.result?.summary, "success(6)")
    }

    func testFlatMapReturningACancelledFutureIsCancelled() {
        let chained = Future(value: 1).flatMap(context: .immediate) { _ in Future<Int>(result: .cancelled) }
        XCTAssertEqual(chained.result?.summary, "cancelled")
    }
}

/// A weak reference that can be captured by `@Sendable` closures.
final class WeakBox<T: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked: `value` is a weak reference, set once at initialisation; weak loads are atomic.
    weak var value: T?
    init(_ value: T) { self.value = value }
}

extension FutureCancellationTests {
    /// `.forceImmediately` on a future shared with another consumer completes it as cancelled for
    /// everyone and asks its producer (the promise's `onRequestCancel` runs): forcing is local, the
    /// producer is asked, never forced, and once the future has completed no consumer can want its
    /// result any more, so the tree rule has nothing left to hold back.
    func testForcingASharedPromiseFutureAsksItsProducer() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log)
        let otherConsumer = promise.future.cancellationToken()

        promise.future.cancel(options: .forceImmediately)

        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        otherConsumer.cancel()  // the other consumer also asks: too late, nothing happens
        XCTAssertEqual(log.count, 1, "the producer of a force-cancelled future was never asked")
    }

    /// `[.thisFutureOnly, .forceImmediately]` on a shared promise future also asks its
    /// producer at once; the producer's answer is ignored (the future has completed).
    func testForcingThisFutureOnlyAsksTheProducerOnceAndIgnoresItsAnswer() {
        let log = EventLog<CancelRequestOptions>()
        let promise = recordingPromise(log, response: .complete(.success(9)))
        let otherConsumer = promise.future.cancellationToken()
        promise.future.cancel(options: [.thisFutureOnly, .forceImmediately])
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(promise.future.result?.summary, "cancelled")
        otherConsumer.cancel()
        XCTAssertEqual(log.count, 1)
    }

    /// A promise completed with one future and then (ignored) with another holds a consumer's vote
    /// on the first only: once it is released pending, the first future's remaining consumer alone
    /// decides, and its cancel reaches the first future's producer. (Re-pointing on the second call
    /// used to leave the vote on the first future behind, so it could never be cancelled.)
    func testIgnoredSecondCompleteWithLeavesNoVoteOnTheFirstFuture() {
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
}
