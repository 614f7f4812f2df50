import Foundation
import ProceduresFutures
import XCTest

// The FutureKit guide's `asynFunc` (reference/futurekit-cancellation.txt), in this library's
// spelling: a promise that answers cancel requests, released as soon as its future is returned.
func asynFunc() -> Future<Int> {
    let p = Promise<Int>()
    p.onRequestCancel { _ in
        return .complete(.cancelled)
    }
    return p.future
}

/// DESIGN.md semantic 14: a released promise breaks its future unless something can still
/// complete it. One that registered `onRequestCancel` can: its future stays pending until a
/// cancel request is answered.
final class PromiseReleaseRuleTests: XCTestCase {
    func testGuideAsynFuncStaysPendingOnceItsPromiseIsReleased() {
        let future = asynFunc()
        XCTAssertNil(future.result, "the promise is gone, but its cancel handler can still complete the future")
    }

    func testGuideAsynFuncIsCancelledByItsToken() {
        let future = asynFunc()
        let token = future.cancellationToken()
        token.cancel()
        XCTAssertEqual(future.result?.isCancelled, true)
    }

    func testReleasedPromiseWhoseHandlerContinuesIsCancelledOnceTheRequestIsAnswered() {
        // `.continue` promises a later completion that nothing can make any more: the request
        // was answered, and the future completes as cancelled rather than waiting forever.
        let handled = LockedBox(0)
        let future: Future<Int> = {
            let promise = Promise<Int>()
            promise.onRequestCancel { _ in
                handled.mutate { $0 += 1 }
                return .continue
            }
            return promise.future
        }()
        XCTAssertNil(future.result)
        future.cancel()
        XCTAssertEqual(handled.value, 1)
        XCTAssertEqual(future.result?.isCancelled, true)
    }

    func testReleasedPromiseWithoutACancelHandlerStillBreaksItsFuture() {
        let future = Promise<Int>().future
        XCTAssertEqual(future.result?.error as? FutureError, .brokenPromise)
    }

    func testTailTokenReachesAPromiseCreatedAndReleasedInsideFlatMap() {
        let requested = LockedBox(0)
        let source = Promise<Int>()
        let tail = source.future.flatMap(context: .immediate) { value -> Future<Int> in
            // Created and released inside the closure: only its future survives, held by the chain.
            let inner = Promise<Int>()
            inner.onRequestCancel { _ in
                requested.mutate { $0 += 1 }
                return .complete(.cancelled)
            }
            return inner.future
        }.map(context: .immediate) { $0 * 2 }
        let token = tail.cancellationToken()
        source.succeed(21)
        XCTAssertNil(tail.result, "the inner future is pending, not broken")

        token.cancel()
        XCTAssertEqual(requested.value, 1)
        XCTAssertEqual(tail.result?.isCancelled, true)
    }

    func testGuideAsynFuncInAChainIsCancelledFromTheTail() {
        let source = Promise<Void>()
        let tail = source.future.flatMap(context: .immediate) { _ in asynFunc() }
        source.succeed(())
        XCTAssertNil(tail.result)
        tail.cancellationToken().cancel()
        XCTAssertEqual(tail.result?.isCancelled, true)
    }

    func testReleasedPromisesRacingCancelRequestsAlwaysComplete() {
        // The promise's release and the cancel request race: whichever comes first, the
        // future completes as cancelled, exactly once.
        let iterations = stressIterations(5_000)
        let completions = LockedBox(0)
        let notCancelled = LockedBox<[String]>([])
        let done = expectation(description: "every future completed")
        done.expectedFulfillmentCount = iterations
        for _ in 0..<iterations {
            var promise: Promise<Int>? = Promise<Int>()
            promise!.onRequestCancel { _ in .continue }
            let future = promise!.future
            future.onComplete(context: .immediate) { result in
                if !result.isCancelled { notCancelled.mutate { $0.append("\(result)") } }
                completions.mutate { $0 += 1 }
                done.fulfill()
            }
            let held = promise
            promise = nil
            DispatchQueue.global().async { future.cancel() }
            DispatchQueue.global().async { _ = held }
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(completions.value, iterations)
        XCTAssertEqual(notCancelled.value.prefix(5), [], "\(notCancelled.value.count) not cancelled")
    }
}
