import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// Waits that close a cycle of the wait-for graph (dependencies, categories, slots, a group's
/// children) are reported as one deadlock naming the whole cycle, and one procedure of it is
/// cancelled so that everything finishes. Every wait here is bounded, so a hang fails.
final class WaitForGraphTests: MisuseRecordingTestCase {
    private let bound: TimeInterval = 10

    private func deadlockReason(_ procedure: Procedure) -> String? {
        for case ProcedureError.deadlock(let reason) in procedure.errors { return reason }
        return nil
    }

    /// Running groups hold every slot of a queue and wait for their children; each child
    /// depends on a procedure added to that queue afterwards, which waits for a slot. Once
    /// the last is added nothing can go on: one report names a cycle, and cancelling its
    /// child frees a slot, after which everything finishes.
    private func assertSlotDeadlockIsEnded(width: Int, file: StaticString = #filePath, line: UInt = #line) {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = width
        var groups: [GroupProcedure] = [], children: [TestProcedure] = [], lates: [TestProcedure] = []
        for index in 0..<width {
            let gate = HeldProcedure(name: "gate-\(index)")
            let late = TestProcedure(name: "late-\(index)")  // added to the queue only later
            let child = TestProcedure(name: "child-\(index)")
            child.addDependency(late)
            let group = GroupProcedure(operations: [gate, child])
            group.name = "group-\(index)"
            groups.append(group)
            children.append(child)
            lates.append(late)
            queue.addOperation(group)
            wait(for: [gate.executing], timeout: bound)  // the group executes, holding a slot
            gate.release()
        }
        for late in lates { queue.addOperation(late) }
        wait(forAll: groups + lates, timeout: bound, file: file, line: line)
        let reports = misuse.all.filter { $0.kind == .deadlock }
        XCTAssertEqual(reports.count, 1, "\(reports)", file: file, line: line)
        let cancelled = children.filter(\.isCancelled)
        XCTAssertEqual(cancelled.count, 1, file: file, line: line)
        guard let child = cancelled.first, let reason = deadlockReason(child) else { return XCTFail("no deadlock", file: file, line: line) }
        let index = children.firstIndex { $0 === child }!
        XCTAssertTrue(reason.contains("group-\(index) waits for its child child-\(index)"), reason, file: file, line: line)
        XCTAssertTrue(reason.contains("child-\(index) waits for its dependency late-\(index)"), reason, file: file, line: line)
        XCTAssertTrue(reason.contains("late-\(index) waits for a slot held by group-"), reason, file: file, line: line)
        for late in lates { assertProcedureFinished(late, file: file, line: line) }
    }

    func testASlotCycleOnAWidthOneQueueIsReportedAndEnded() {
        assertSlotDeadlockIsEnded(width: 1)
    }

    func testFourGroupsHoldingEverySlotOfAWidthFourQueueAreReportedOnceAndAllFinish() {
        assertSlotDeadlockIsEnded(width: 4)
    }

    /// A wait for a slot ends when any holder finishes: a slot holder whose children wait
    /// for the waiter is no deadlock while another holder can finish.
    func testASlotHeldByAStuckGroupIsNoDeadlockWhileAnotherHolderCanFinish() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 2
        let gate = HeldProcedure(name: "gate")
        let late = TestProcedure(name: "late")
        let child = TestProcedure(name: "child")
        child.addDependency(late)
        let group = GroupProcedure(operations: [gate, child])
        group.name = "group"
        let other = HeldProcedure(name: "other")
        queue.addOperation(group)
        wait(for: [gate.executing], timeout: bound)
        gate.release()
        queue.addOperation(other)
        wait(for: [other.executing], timeout: bound)
        queue.addOperation(late)  // waits for a slot: group's leads back to it, other's does not
        other.release()
        wait(for: group, late, timeout: bound)
        assertProcedureFinished(child)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    /// With no width limit: a group holds category B; its child needs A; a procedure that
    /// needs A and B is first in A's line (so the child waits behind it) and waits for B.
    func testACategoryLineCycleIsReportedAndEnded() {
        let a = "line-a-\(UUID().uuidString)", b = "line-b-\(UUID().uuidString)"
        let gate = HeldProcedure(name: "gate")
        let child = TestProcedure(name: "child")
        child.addCondition(MutuallyExclusive<Never>(category: a))
        child.addDependency(gate)
        let group = GroupProcedure(operations: [gate, child])
        group.name = "group"
        group.addCondition(MutuallyExclusive<Never>(category: b))
        let both = TestProcedure(name: "both")
        both.addCondition(MutuallyExclusive<Never>(category: a))
        both.addCondition(MutuallyExclusive<Never>(category: b))
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [gate.executing], timeout: bound)
        queue.addOperation(both)
        let waits = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in both.waitingReason.map { "\($0)" }?.contains("held by group") == true }, object: nil)
        wait(for: [waits], timeout: bound)
        gate.release()
        wait(for: group, both, timeout: bound)
        XCTAssertEqual(
            deadlockReason(child),
            "child waits for category \"\(a)\" held by both; both waits for category \"\(b)\" held by group; group waits for its child child")
        assertProcedureFinished(both)
        XCTAssertEqual(misuse.kinds(about: child), [.deadlock])
        XCTAssertFalse(ExclusivityManager.isInUse(a))
        XCTAssertFalse(ExclusivityManager.isInUse(b))
    }

    /// A procedure waiting for a slot held by a group whose children do not wait for it is
    /// no deadlock: nothing is reported, and it runs once the group finishes.
    func testWaitingForASlotHeldByAGroupThatDoesNotWaitForItIsNotReported() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let gate = HeldProcedure(name: "gate")
        let group = GroupProcedure(operations: [gate])
        queue.addOperation(group)
        wait(for: [gate.executing], timeout: bound)
        let late = TestProcedure(name: "late")
        queue.addOperation(late)
        gate.release()
        wait(for: group, late, timeout: bound)
        assertProcedureFinished(late)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    /// A group that gave its category back to wait for a slot has started once it has the
    /// slot, yet its children still wait for it until it has the category again: a cycle
    /// through them (the category's holder waits for a child that depends on one of them)
    /// is reported, and cancelling the group ends it.
    func testAGroupTakingItsCategoryBackHoldsItsChildrenBackAndACycleThroughThemIsReported() {
        let b = "taking-back-\(UUID().uuidString)"
        let narrow = ProcedureQueue()
        narrow.maxConcurrentOperationCount = 1
        let occupant = HeldProcedure(name: "occupant")
        narrow.addOperation(occupant)
        wait(for: [occupant.executing], timeout: bound)
        let inner = TestProcedure(name: "inner")
        let group = GroupProcedure(operations: [inner])
        group.name = "group"
        group.addCondition(MutuallyExclusive<Never>(category: b))
        narrow.addOperation(group)  // granted B, then gives it back to wait for the slot
        waitUntil("the group gave B back to wait for the slot", timeout: bound) { group.waitingReason.map { "\($0)" }?.contains("slot") == true && !ExclusivityManager.isInUse(b) }
        let child = TestProcedure(name: "child")
        child.addDependency(inner)
        let holder = GroupProcedure(operations: [child])
        holder.name = "holder"
        holder.addCondition(MutuallyExclusive<Never>(category: b))
        ProcedureQueue().addOperation(holder)  // takes B and waits for child, which waits for inner
        waitUntil("holder executes", timeout: bound) { holder.isExecuting }
        occupant.release()  // the group gets the slot, and waits for B behind holder
        wait(for: group, holder, timeout: bound)
        // Whichever of the group's wait and the holder's start closes it, names the cycle from there.
        XCTAssertEqual(
            deadlockReason(group).map { Set($0.components(separatedBy: "; ")) },
            [
                "group waits for category \"\(b)\" held by holder", "holder waits for its child child",
                "child waits for its dependency inner", "inner waits for its group group to start",
            ])
        XCTAssertEqual(misuse.kinds(about: group), [.deadlock])
        XCTAssertTrue(inner.isCancelled)
        assertProcedureFinished(child)
        XCTAssertFalse(ExclusivityManager.isInUse(b))
    }
}
