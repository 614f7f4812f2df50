import Foundation
import XCTest
@testable import ProceduresFutures

/// Probes from the futures/cancellation audit that pass, kept for the coverage they add.
final class FuturesAuditCoverageTests: XCTestCase {

    /// Thousands of live futures share the 64 stripes; handlers that register on, complete
    /// and cancel *other* futures (many on the same stripe), and request handlers answering
    /// `.complete`, must never run under a stripe: nothing deadlocks, every handler runs once.
    /// (Each handler touches a leaf future, so the nesting stays one level deep: a handler
    /// that completes the next promise of a 4,096-long relay nests one `complete` per promise
    /// and overflows the stack; that is user recursion, noted in the audit report.)
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

    /// `a || b` and `a && b` complete as *not cancelled* once both requests go away uncancelled,
    /// and release their handlers (what the handlers captured is freed).
    func testTokenCombinatorsCompleteWhenBothRequestsAreReleased() {
        weak var captured: Tracked?
        var orResult: CancellationToken?
        var andResult: CancellationToken?
        do {
            let a = CancellationRequest()
            let b = CancellationRequest()
            orResult = a.token || b.token
            andResult = a.token && b.token
            let tracked = Tracked()
            captured = tracked
            a.token.onCancel { withExtendedLifetime(tracked) {} }
        }
        XCTAssertEqual(orResult?.isCompleted, true)
        XCTAssertEqual(orResult?.isCancelled, false)
        XCTAssertEqual(andResult?.isCompleted, true)
        XCTAssertEqual(andResult?.isCancelled, false)
        XCTAssertNil(captured)
    }

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
