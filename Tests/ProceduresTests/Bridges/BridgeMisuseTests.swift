import Foundation
import ProceduresTesting
import XCTest

/// Procedures that belong to no queue, finished procedures, and other edge cases of the bridges.
final class BridgeMisuseTests: MisuseRecordingTestCase {
    func testFutureOfANeverEnqueuedProcedureDoesNotStartIt() {
        let procedure = Blocker<Int>("lonely")
        let future = procedure.future
        // Let unrelated work run to completion on a queue: the lonely procedure is unaffected.
        wait(for: ResultProcedure { 0 })
        XCTAssertFalse(future.isCompleted, "pending while the procedure belongs to no queue")
        XCTAssertFalse(procedure.isEnqueued)
        XCTAssertEqual(procedure.executeCount, 0)

        ProcedureQueue().addOperation(procedure)  // once it is added, it runs
        wait(for: [procedure.executed], timeout: 10)
        procedure.release(9)
        XCTAssertEqual(waitForResult(of: future)?.value, 9)
    }

    func testCancelRequestOnTheFutureOfANeverEnqueuedProcedureCompletesItAtOnce() {
        let procedure = Blocker<Int>("lonely")
        let future = procedure.future
        future.cancel()
        XCTAssertTrue(procedure.isCancelled, "the request reached the procedure")
        XCTAssertEqual(future.result?.isCancelled, true, "nothing would start it, so the future does not wait")
        ProcedureQueue().addOperation(procedure)  // added later anyway: it finishes cancelled
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(procedure.executeCount, 0)
    }

    func testQueueFutureOfAFinishedProcedureCompletesAtOnceWithoutMisuse() {
        let procedure = ResultProcedure { 4 }
        wait(for: procedure)
        let queue = ProcedureQueue()
        let future = queue.future(procedure)
        XCTAssertEqual(future.result?.value, 4)
        XCTAssertEqual(misuse.kinds(about: procedure), [], "a finished procedure is not added again")
    }

    func testAwaitingTheFutureOfANeverEnqueuedProcedureWaitsUntilItIsAdded() async throws {
        let procedure = ResultProcedure { 8 }
        let future = procedure.future
        let waiter = Task { try await future.value }
        // `future.value` does not add the procedure to a queue (`queue.run` does).
        XCTAssertFalse(procedure.isEnqueued)
        ProcedureQueue().addOperation(procedure)
        let value = try await waiter.value
        XCTAssertEqual(value, 8)
    }

    func testInjectingAfterTheTargetWasEnqueuedIsReported() {
        let source = ResultProcedure { 1 }
        let target = TransformProcedure { (x: Int) in x }
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperation(target)
        target.injectResult(from: source)
        XCTAssertEqual(misuse.kinds(about: target), [.invalidDependency])
        queue.isSuspended = false
        wait(for: target)
        // The dependency was refused, so the observer runs before `source` finished.
        assertProcedureCancelled(target, withErrors: true)
    }

    func testTheFutureOfAGroupChildCompletesWhenTheGroupRunsIt() {
        let child = ResultProcedure { 12 }
        let group = GroupProcedure(operations: [child])
        let future = child.future  // not queue.future(child): see ProcedureFutureCancelTests
        XCTAssertFalse(future.isCompleted)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(future.result?.value, 12)
    }
}
