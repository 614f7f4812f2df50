import Foundation
import ProceduresTesting
import XCTest

/// The cancellation example of FutureKit's guide, with procedures in place of its async
/// functions.
/// The reference's async functions, each returning the future of a procedure it starts.
final class ReferenceFunctions: Sendable {
    let queue = ProcedureQueue()
    let step1 = LockedBox<Blocker<Int>?>(nil)
    let step2 = LockedBox<Blocker<Int>?>(nil)

    /// `asyncFunc1()`: a procedure's future.
    func asyncFunc1() -> Future<Int> {
        let procedure = Blocker<Int>("asyncFunc1")
        step1.mutate { $0 = procedure }
        return queue.future(procedure)
    }

    /// `asyncFunc2()`: another procedure's future.
    func asyncFunc2() -> Future<Int> {
        let procedure = Blocker<Int>("asyncFunc2")
        step2.mutate { $0 = procedure }
        return queue.future(procedure)
    }
}

final class FutureKitReferenceTests: XCTestCase {
    let functions = ReferenceFunctions()
    var queue: ProcedureQueue { functions.queue }
    var step1: LockedBox<Blocker<Int>?> { functions.step1 }
    var step2: LockedBox<Blocker<Int>?> { functions.step2 }
    func asyncFunc1() -> Future<Int> { functions.asyncFunc1() }

    /// "Simple cancellation": get a token, cancel it.
    func testSimpleCancellation() {
        let f = asyncFunc1()
        let token = f.cancellationToken()
        wait(for: [step1.value!.executed], timeout: 10)
        token.cancel()
        XCTAssertEqual(waitForResult(of: f)?.isCancelled, true)
        assertProcedureCancelled(step1.value!)
    }

    /// "The cancellation will be forwarded to EITHER asyncFunc1()'s future OR asyncFunc2()'s
    /// future, depending when the cancellation happens" — here: while the first runs.
    func testChainTokenReachesTheFirstWhileItRuns() {
        let token = asyncFunc1().flatMap { [functions] _ in functions.asyncFunc2() }.cancellationToken()
        wait(for: [step1.value!.executed], timeout: 10)
        token.cancel()
        wait(for: step1.value!)
        assertProcedureCancelled(step1.value!)
        XCTAssertNil(step2.value, "asyncFunc2 never ran")
    }

    /// ... and once the second runs.
    func testChainTokenReachesTheSecondOnceItRuns() {
        let f = asyncFunc1().flatMap { [functions] _ in functions.asyncFunc2() }
        let token = f.cancellationToken()
        wait(for: [step1.value!.executed], timeout: 10)
        step1.value!.release(1)
        let secondCreated = XCTNSPredicateExpectation(
            predicate: NSPredicate { [step2] _, _ in step2.value != nil }, object: nil)
        wait(for: [secondCreated], timeout: 10)
        wait(for: [step2.value!.executed], timeout: 10)
        token.cancel()
        XCTAssertEqual(waitForResult(of: f)?.isCancelled, true)
        assertProcedureFinished(step1.value!)
        wait(for: step2.value!)
        assertProcedureCancelled(step2.value!)
    }

    /// Trees: "let token = subFuture2.getCancellationToken(); token.cancel() /// future is NOT
    /// cancelled, nor is subFuture1" (the tree rule is this library's default).
    func testTreeOfTwoSubFutures() {
        let future = asyncFunc1()
        let subFuture1 = future.map(context: .immediate) { $0 + 1 }
        let subFuture2 = future.map(context: .immediate) { $0 + 2 }
        wait(for: [step1.value!.executed], timeout: 10)
        let token = subFuture2.cancellationToken()
        token.cancel()
        XCTAssertFalse(step1.value!.isCancelled, "future is NOT cancelled")
        XCTAssertFalse(subFuture1.isCompleted, "nor is subFuture1")
        step1.value!.release(10)
        XCTAssertEqual(waitForResult(of: subFuture1)?.value, 11)
    }

    /// Two tokens from the same future: one cancelling does not cancel it.
    func testTwoTokensFromTheSameFuture() {
        let future = asyncFunc1()
        let token1 = future.cancellationToken()
        let token2 = future.cancellationToken()
        wait(for: [step1.value!.executed], timeout: 10)
        token1.cancel()
        XCTAssertFalse(step1.value!.isCancelled)
        token2.cancel()
        XCTAssertEqual(waitForResult(of: future)?.isCancelled, true)
    }

    /// "Implementing cancellation in your custom promises", run as a procedure: the promise's
    /// `onRequestCancel` completes it as cancelled, which cancels the procedure waiting on it.
    func testCustomPromiseAsAProcedure() {
        let requested = expectation(description: "request reached the promise")
        // The work the promise stands for keeps it here (the reference's own snippet, which
        // releases it, is in PromiseReleaseRuleTests).
        let work = LockedBox<Promise<Int>?>(nil)
        func asyncFunc() -> Future<Int> {
            let p = Promise<Int>()
            p.onRequestCancel { _ in
                requested.fulfill()
                return .complete(.cancelled)
            }
            work.mutate { $0 = p }
            return p.future
        }
        let procedure = FutureProcedure(asyncFunc())
        let executing = expectation(description: "executing")
        procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let tail = queue.future(procedure).map(context: .immediate) { $0 * 2 }
        wait(for: [executing], timeout: 10)
        tail.cancel()
        wait(for: [requested], timeout: 10)
        XCTAssertEqual(waitForResult(of: tail)?.isCancelled, true)
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(work.value?.future.result?.isCancelled, true)
    }
}
