import Foundation
import ProceduresTesting
import XCTest

/// What a group's cancel reaches and what it keeps: every child is cancelled before any of
/// them can run on, whenever it was added and whatever state the group is in, and the errors
/// children had before the cancel stay in the group's errors.
final class GroupCancelPropagationTests: MisuseRecordingTestCase {
    /// The group cancels all its children before any of them can react: cancelling a running
    /// child makes it finish at once and releases the children that depend on it, and those must
    /// already be cancelled when they start, so their work never runs.
    func testGroupCancelReachesChildrenWaitingOnACancelledChildBeforeTheyRun() {
        let executing = expectation(description: "blocker executing")
        let blocker = WaitForCancelProcedure(name: "blocker")  // finishes when cancelled
        blocker.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let waiting = (0..<50).map { TestProcedure(name: "waiting \($0)") }
        for procedure in waiting { procedure.addDependency(blocker) }
        let group = GroupProcedure(operations: [blocker] + waiting)
        ProcedureQueue().addOperation(group)
        wait(for: [executing], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        let executed = waiting.filter { $0.executeCount > 0 }.map { $0.name ?? "?" }
        XCTAssertEqual(executed, [], "children of a cancelled group executed")
        let notCancelled = waiting.filter { !$0.isCancelled }.map { $0.name ?? "?" }
        XCTAssertEqual(notCancelled, [], "children of a cancelled group were not cancelled")
    }

    /// The same with a plain `Operation` child: its block never runs after the group was
    /// cancelled (a `cancel()` that arrives after a plain operation finished has no effect).
    func testGroupCancelReachesPlainChildrenWaitingOnACancelledChild() {
        let executing = expectation(description: "blocker executing")
        let blocker = WaitForCancelProcedure(name: "blocker")
        blocker.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let runs = LockedBox(0)
        let plain = (0..<20).map { _ in BlockOperation { runs.mutate { $0 += 1 } } }
        for operation in plain { operation.addDependency(blocker) }
        let group = GroupProcedure(operations: [blocker] + plain)
        ProcedureQueue().addOperation(group)
        wait(for: [executing], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(runs.value, 0, "blocks of a cancelled group's children ran")
        XCTAssertTrue(plain.allSatisfy(\.isCancelled), "children of a cancelled group were not cancelled")
    }

    /// A child that failed (a real error, not an echo of a cancel) before the group was cancelled
    /// without errors keeps its failure in the group's errors: the group reports it failed.
    func testChildFailureBeforeACancelWithoutErrorsIsKept() {
        let failing = TestProcedure(name: "failing", error: TestError("real failure"))
        let executing = expectation(description: "running child executing")
        let running = WaitForCancelProcedure(name: "running")
        running.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let group = GroupProcedure(operations: [failing, running])
        ProcedureQueue().addOperation(group)
        wait(for: [executing], timeout: 10)
        waitUntilFinishedWithoutEnqueueing(failing)
        XCTAssertTrue(failing.failed)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isCancelled)
        XCTAssertEqual(testErrorIDs(group.errors), ["real failure"], "\(group.errors)")
    }

    /// A suspended group finishes promptly when cancelled, as a cancelled group is documented to,
    /// rather than waiting for someone to resume it (its cancelled children would otherwise sit in
    /// its suspended queue). A suspended `OperationQueue` does not start cancelled operations; the
    /// group's promise to finish wins here.
    func testCancelledSuspendedGroupFinishes() {
        let child = TestProcedure(name: "held")
        let group = GroupProcedure(operations: [child])
        group.isSuspended = true
        let executed = expectation(description: "group executed")
        group.addDidExecuteBlockObserver { _ in executed.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [executed], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        assertProcedureCancelled(child)
        XCTAssertEqual(child.executeCount, 0)
        group.isSuspended = false  // let it finish, whatever the outcome
    }

    /// A child added after `cancel()` returned is cancelled, even while the group's callbacks are
    /// busy and the cancel has not taken effect yet (here a did-execute observer still runs; in
    /// practice, the group handling a child's finish): the group's cancel request is recorded
    /// synchronously, with its errors.
    func testChildAddedAfterCancelReturnedIsCancelled() {
        let anchor = WaitForCancelProcedure(name: "anchor")
        let group = GroupProcedure(operations: [anchor])
        let inObserver = expectation(description: "group's did-execute observer running")
        let release = DispatchSemaphore(value: 0)
        group.addDidExecuteBlockObserver { _ in
            inObserver.fulfill()
            release.wait()  // test code holding the group's callbacks busy, on purpose
        }
        ProcedureQueue().addOperation(group)
        wait(for: [inObserver], timeout: 10)

        group.cancel(withError: TestError("cancelled"))
        let late = TestProcedure(name: "added after cancel() returned")
        group.addChild(late)
        waitUntilFinishedWithoutEnqueueing(late)
        release.signal()
        wait(for: group, timeout: 10)

        assertProcedureCancelled(group, withErrors: true)
        XCTAssertTrue(late.isCancelled, "a child added after cancel() returned was not cancelled")
        XCTAssertEqual(late.executeCount, 0, "a child added after cancel() returned executed")
    }

    /// A child that had begun finishing with a failure before the group was cancelled (its own
    /// cancel was ignored) keeps that failure in the group's errors: it is not an echo of the
    /// cancel, and the group carries its own cancel errors and the errors its children had before
    /// the cancel.
    func testChildFailureDecidedBeforeTheGroupsCancelIsKept() {
        let failure = TestError("real failure")
        let child = BlockProcedure(asyncBlock: { _ in })
        let group = GroupProcedure(operations: [child])
        child.addWillFinishBlockObserver { _, _ in group.cancel() }
        let executing = expectation(description: "child executing")
        child.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [executing], timeout: 5)
        child.finish(withError: failure)
        wait(for: group)
        XCTAssertTrue(group.isCancelled)
        XCTAssertEqual(child.errors.compactMap { $0 as? TestError }, [failure])
        XCTAssertEqual(group.errors.compactMap { $0 as? TestError }, [failure], "the child's own failure was dropped: \(group.errors)")
    }
}
