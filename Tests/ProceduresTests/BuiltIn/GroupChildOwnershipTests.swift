import Foundation
import ProceduresTesting
import XCTest

/// What a group takes as its children: each procedure once, never itself, never a procedure
/// that has finished or belongs to another queue; refused adds are reported and never hold up
/// the group, and a group that depends on its own child is a reported cycle, not a hang.
final class GroupChildOwnershipTests: MisuseRecordingTestCase {
    /// A group added as its own child: the add is reported and ignored, and the group then runs
    /// when added to a queue (adopting itself would claim it for its own suspended queue).
    func testGroupAddedAsItsOwnChildIsReportedAndTheGroupRuns() {
        let group = GroupProcedure(operations: [BlockProcedure {}])
        group.name = "self-parent"
        group.addChild(group)
        XCTAssertFalse(misuse.kinds(about: group).isEmpty, "adding a group to itself was not reported")
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "\(group.stateSummary); reports: \(misuse.kinds(about: group))")
    }

    /// A group that depends on one of its own children is a cycle ("a group waits for its
    /// children" closes it): it is reported and everything finishes, never a silent hang.
    func testGroupDependingOnItsOwnChildIsReportedAndFinishes() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        group.name = "waits for its child"
        group.addDependency(child)
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, group.stateSummary)
        XCTAssertFalse(misuse.all.isEmpty, "the cycle was not reported")
    }

    /// A finished procedure added as a child is refused (reported as `addedAfterFinishing`) and
    /// not counted: the group finishes without waiting for it.
    func testFinishedProcedureAddedAsChildIsNotCounted() {
        let finished = TestProcedure(name: "already finished")
        wait(for: finished)
        let group = GroupProcedure(operations: [finished, TestProcedure(name: "fresh")])
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "the group never finished: \(group.children.map(\.isFinished))")
        XCTAssertEqual(misuse.kinds(about: finished), [.addedAfterFinishing])
    }

    /// The same procedure added twice as a child counts once: the group finishes when it does.
    func testProcedureAddedTwiceAsChildCountsOnce() {
        let child = TestProcedure(name: "twice")
        let group = GroupProcedure(operations: [child])
        group.addChild(child)
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "the group never finished")
        XCTAssertEqual(child.executeCount, 1)
        // Depending on whether the first copy already finished when the second is enqueued.
        let kinds = misuse.kinds(about: child)
        XCTAssertTrue(kinds == [.addedTwice] || kinds == [.addedAfterFinishing], "\(kinds)")
    }

    /// A procedure that already belongs to another queue is refused as a child and not counted:
    /// the group finishes without it.
    func testProcedureOwnedByAnotherQueueIsNotCountedAsAChild() {
        let elsewhere = TestProcedure(name: "elsewhere", delay: 0.05)
        let otherQueue = ProcedureQueue()
        otherQueue.isSuspended = true
        otherQueue.addOperation(elsewhere)
        let group = GroupProcedure(operations: [elsewhere])
        ProcedureQueue().addOperation(group)
        otherQueue.isSuspended = false
        wait(for: elsewhere, timeout: 10)
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "the group never finished")
        XCTAssertEqual(misuse.kinds(about: elsewhere), [.addedToSecondQueue])
    }
}
