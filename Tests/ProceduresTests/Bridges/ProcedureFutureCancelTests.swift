import Foundation
import ProceduresTesting
import XCTest

/// A procedure's future under cancellation: it completes whether or not the procedure is on a
/// queue, its consumers vote together, and a cancel never lands after the finish it raced.
final class ProcedureFutureCancelTests: MisuseRecordingTestCase {
    /// A Task awaiting the future of a procedure that belongs to no queue returns once cancelled:
    /// a procedure finishes only when a queue starts it, so with no queue the future completes as
    /// cancelled at once rather than never.
    func testCancelledAwaitOfANeverEnqueuedProceduresFutureReturns() {
        let procedure = ResultProcedure { 1 }
        let future = procedure.future
        let ended = expectation(description: "the await ends")
        let task = Task {
            _ = try? await future.value
            ended.fulfill()
        }
        task.cancel()
        wait(for: [ended], timeout: 10)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertEqual(future.result?.isCancelled, true, "nothing would start it, so the future completes cancelled")
    }

    /// The Void future and the output future of one procedure count their consumers together
    /// under the tree rule: one consumer of the Void future asking does not cancel a procedure whose
    /// output another consumer still wants (the output future is derived from the Void one).
    func testVoidFutureConsumerAloneDoesNotCancelAProcedureWhoseOutputIsWanted() {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("shared")
        let wantsOutput = queue.future(blocker).map(context: .immediate) { $0 + 1 }
        let done: Future<Void> = blocker.future
        wait(for: [blocker.executed], timeout: 10)
        done.cancel()
        XCTAssertFalse(blocker.isCancelled, "`wantsOutput` has not asked")
        blocker.release(1)
        wait(for: blocker)
        XCTAssertEqual(wantsOutput.result?.value, 2)
    }

    /// `queue.future(child)` (and `queue.run(child)`) on a child of a group that has not started
    /// yet does not add the child to `queue`: the child belongs to its group, runs there, and the
    /// group finishes.
    func testFutureOfAGroupChildLeavesItToItsGroup() {
        let queue = ProcedureQueue()
        let child = ResultProcedure { 3 }
        let group = GroupProcedure(operations: [child])
        let future = queue.future(child)
        queue.addOperation(group)
        XCTAssertEqual(waitForResult(of: future)?.value, 3)
        wait(for: group)
        XCTAssertEqual(misuse.reports(aboutAny: [child, group]).map(\.kind), [])
        assertProcedureFinished(group)
    }

    /// A cancel racing a finish never takes effect after the procedure finished: when the
    /// procedure's future and `queue.run` report success, `isCancelled` stays false. (`cancel()`
    /// decides under the lock and posts its event in a second step; a finish requested in between is
    /// handled first, so the cancel event must check again.) Rare: a few runs in 20,000; the loop
    /// takes about a second.
    func testCancelNeverTakesEffectAfterTheProcedureFinished() async {
        let queue = ProcedureQueue()
        var late: [String] = []
        for index in 0..<stressIterations(20_000) {
            let procedure = ResultProcedure { index }
            let finishedCancelled = LockedBox<Bool?>(nil)
            procedure.addDidFinishBlockObserver { procedure, _ in
                finishedCancelled.mutate { $0 = procedure.isCancelled }
            }
            let task = Task { try await queue.run(procedure) }
            DispatchQueue.global().async { task.cancel() }
            _ = await task.result
            if finishedCancelled.value != procedure.isCancelled {
                late.append("#\(index): \(procedure.stateSummary), cancelled at did-finish: \(String(describing: finishedCancelled.value))")
            }
        }
        XCTAssertEqual(late, [], "isCancelled changed after the procedure finished")
    }
}
