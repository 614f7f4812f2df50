import Foundation
import ProceduresTesting
import XCTest

/// A procedure's future: `procedure.future` and `queue.future(procedure)`.
final class ProcedureFutureTests: MisuseRecordingTestCase {
    /// Finishes with several errors at once.
    final class TwoErrors: ResultProcedure<Int>, @unchecked Sendable {
        override func execute() { finish(withErrors: [TestError("e1"), TestError("e2")]) }
    }

    // MARK: Outcomes

    func testSuccessCarriesTheOutput() {
        let queue = ProcedureQueue()
        let result = waitForResult(of: queue.future(ResultProcedure { 7 }))
        XCTAssertEqual(result?.value, 7)
    }

    func testOneErrorArrivesAsIs() {
        let queue = ProcedureQueue()
        let result = waitForResult(of: queue.future(ResultProcedure<Int> { throw TestError("e4") }))
        XCTAssertEqual(result?.typedError(TestError.self), TestError("e4"), "\(result?.summary ?? "nil")")
    }

    func testSeveralErrorsArriveAsMultiple() {
        let queue = ProcedureQueue()
        let result = waitForResult(of: queue.future(TwoErrors()))
        guard case .multiple(let errors)? = result?.typedError(ProcedureError.self) else {
            return XCTFail("expected ProcedureError.multiple, got \(result?.summary ?? "nil")")
        }
        XCTAssertEqual(errors.compactMap { $0 as? TestError }, [TestError("e1"), TestError("e2")])
    }

    func testSucceedingWithoutAnOutputFailsTheFuture() {
        let queue = ProcedureQueue()
        let silent = ResultProcedure<Int>()
        silent.name = "Silent"
        let result = waitForResult(of: queue.future(silent))
        guard case .noOutput(let name)? = result?.typedError(ProcedureError.self) else {
            return XCTFail("expected noOutput, got \(result?.summary ?? "nil")")
        }
        XCTAssertEqual(name, "Silent")
    }

    func testCancellingTheProcedureCompletesTheFutureAsCancelled() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let future = queue.future(blocker)
        wait(for: [blocker.executed], timeout: 10)
        XCTAssertFalse(future.isCompleted)
        blocker.cancel()
        XCTAssertEqual(waitForResult(of: future)?.isCancelled, true)
    }

    func testProcedureCancelledWithErrorsStillGivesACancelledFuture() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let future = queue.future(blocker)
        wait(for: [blocker.executed], timeout: 10)
        blocker.cancel(withError: TestError("e5"))
        XCTAssertEqual(waitForResult(of: future)?.summary, "cancelled")
        XCTAssertEqual(blocker.errors.first as? TestError, TestError("e5"), "the errors stay on the procedure")
    }

    func testPlainProcedureGivesAVoidFuture() {
        let queue = ProcedureQueue()
        let plain = TestProcedure()
        let future: Future<Void> = queue.future(plain)
        XCTAssertNotNil(waitForResult(of: future)?.value)
        let failing = TestProcedure(error: TestError("e2"))
        XCTAssertEqual(waitForResult(of: queue.future(failing))?.typedError(TestError.self), TestError("e2"))
    }

    // MARK: Identity

    func testEveryCallReturnsTheSameFuture() {
        let queue = ProcedureQueue()
        let procedure = ResultProcedure { 1 }
        let first = procedure.future
        XCTAssertTrue(first === procedure.future)
        XCTAssertTrue(first === queue.future(procedure))
        XCTAssertTrue(first === queue.future(procedure), "asking again after it was added")
        _ = waitForResult(of: first)
        XCTAssertTrue(first === procedure.future, "and after it finished")
    }

    func testQueueFutureAddsTheProcedureOnce() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        _ = queue.future(blocker)
        _ = queue.future(blocker)
        _ = ProcedureQueue().future(blocker)  // another queue: still not added twice
        wait(for: [blocker.executed], timeout: 10)
        blocker.release(1)
        wait(for: blocker)
        XCTAssertEqual(misuse.kinds(about: blocker), [])
        XCTAssertEqual(blocker.executeCount, 1)
    }

    // MARK: Cancel requests

    func testCancelRequestOnTheFutureCancelsTheProcedure() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let future = queue.future(blocker)
        wait(for: [blocker.executed], timeout: 10)
        future.cancel()
        XCTAssertEqual(waitForResult(of: future)?.isCancelled, true)
        wait(for: blocker)
        assertProcedureCancelled(blocker)
    }

    func testCancelRequestBeforeTheProcedureStartsMeansItNeverExecutes() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let blocker = Blocker<Int>("blocker")
        let future = queue.future(blocker)
        future.cancellationToken().cancel()
        XCTAssertTrue(blocker.isCancelled)
        queue.isSuspended = false
        XCTAssertEqual(waitForResult(of: future)?.isCancelled, true)
        XCTAssertEqual(blocker.executeCount, 0)
    }

    func testCancelRequestAfterCompletionChangesNothing() {
        let queue = ProcedureQueue()
        let procedure = ResultProcedure { 3 }
        let future = queue.future(procedure)
        XCTAssertEqual(waitForResult(of: future)?.value, 3)
        future.cancel()
        XCTAssertEqual(future.result?.value, 3)
        XCTAssertFalse(procedure.isCancelled)
    }

    func testAwaitingTheFutureFromACancelledTaskCancelsTheProcedure() async {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let future = queue.future(blocker)
        let task = Task { try await future.value }
        await fulfillment(of: [blocker.executed], timeout: 10)
        task.cancel()
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertTrue(blocker.isCancelled)
    }

    // MARK: Already finished

    func testFutureOfAFinishedProcedureCompletesAtOnce() {
        let procedure = ResultProcedure { "ready" }
        wait(for: procedure)
        let future = procedure.future  // first asked after it finished
        XCTAssertEqual(future.result?.value, "ready", "completed before `future` returned")
        let failed = ResultProcedure<Int> { throw TestError("e8") }
        wait(for: failed)
        XCTAssertEqual(failed.future.result?.typedError(TestError.self), TestError("e8"))
        let cancelled = ResultProcedure { 1 }
        cancelled.cancel()
        wait(for: cancelled)
        XCTAssertEqual(cancelled.future.result?.isCancelled, true)
    }

    /// The future is complete when `future` returns even if the procedure's worker is still
    /// delivering its last events (a late observer would complete it a moment later).
    func testFutureAskedRightAfterTheFinishIsAlreadyComplete() {
        let queue = ProcedureQueue()
        for index in 0..<stressIterations(2_000) {
            let procedure = ResultProcedure { index }
            queue.addOperation(procedure)
            wait(for: procedure)
            XCTAssertEqual(procedure.future.result?.value, index, "iteration \(index)")
        }
    }

    // MARK: Tree rule

    func testOneOfTwoConsumersCancellingDoesNotCancelTheProcedure() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("shared")
        let shared = queue.future(blocker)
        let first = shared.map(context: .immediate) { $0 + 1 }
        let second = shared.map(context: .immediate) { $0 * 10 }
        wait(for: [blocker.executed], timeout: 10)
        first.cancel()
        XCTAssertFalse(blocker.isCancelled, "the other consumer still wants the result")
        blocker.release(4)
        XCTAssertEqual(waitForResult(of: second)?.value, 40)
        XCTAssertEqual(waitForResult(of: first)?.value, 5, "a cancel request is not a guarantee")
        assertProcedureFinished(blocker)
    }

    func testBothConsumersCancellingCancelsTheProcedure() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("shared")
        let shared = queue.future(blocker)
        let first = shared.map(context: .immediate) { $0 + 1 }
        let second = shared.map(context: .immediate) { $0 * 10 }
        wait(for: [blocker.executed], timeout: 10)
        first.cancel()
        second.cancel()
        XCTAssertEqual(waitForResult(of: first)?.isCancelled, true)
        XCTAssertEqual(waitForResult(of: second)?.isCancelled, true)
        wait(for: blocker)
        assertProcedureCancelled(blocker)
    }

    func testAConsumerThatGoesAwayNoLongerVotes() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("shared")
        let shared = queue.future(blocker)
        let kept = shared.map(context: .immediate) { $0 + 1 }
        var token: FutureCancelToken? = shared.cancellationToken()
        wait(for: [blocker.executed], timeout: 10)
        kept.cancel()
        XCTAssertFalse(blocker.isCancelled, "the token still counts as a consumer")
        XCTAssertNotNil(token)
        token = nil  // released without asking: the remaining consumer decides
        XCTAssertEqual(waitForResult(of: kept)?.isCancelled, true)
        wait(for: blocker)
        assertProcedureCancelled(blocker)
    }

    func testForcingATailCancelsItAtOnceButOnlyAsksTheProcedure() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let other = queue.future(blocker).map(context: .immediate) { $0 }
        let tail = queue.future(blocker).map(context: .immediate) { $0 }
        wait(for: [blocker.executed], timeout: 10)
        tail.cancel(options: .forceImmediately)
        XCTAssertEqual(tail.result?.isCancelled, true, "forced: completed before cancel returned")
        XCTAssertFalse(blocker.isCancelled, "the procedure was only asked, and `other` still wants it")
        blocker.release(1)
        XCTAssertEqual(waitForResult(of: other)?.value, 1)
    }
}
