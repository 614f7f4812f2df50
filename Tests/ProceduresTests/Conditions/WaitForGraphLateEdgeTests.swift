import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// A cycle of waits is reported and ended whichever of its waits begins last: not only a
/// category or slot wait, but also a group starting while a procedure already waits for its
/// slot, a category's line moving on to a procedure that still waits, and a dependency wait
/// that closes a cycle through a group (a child's, or a group's own). Every wait here is
/// bounded, so a hang fails.
final class WaitForGraphLateEdgeTests: MisuseRecordingTestCase {
    private let bound: TimeInterval = 5

    private func category() -> String { "late-edge-\(UUID().uuidString)" }


    private static func reason(_ procedure: Procedure) -> String { procedure.waitingReason.map { "\($0)" } ?? "" }

    /// `late` waits for the only slot while a plain procedure holds it; then the group takes
    /// the slot and starts, and its child waits for `late`: the group's start closes the cycle.
    func testACycleClosedByAGroupStartingWhileAProcedureWaitsForItsSlotIsReportedAndEnded() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let blocker = HeldProcedure(name: "blocker")
        queue.addOperation(blocker)
        wait(for: [blocker.executing], timeout: bound)
        let late = TestProcedure(name: "late")
        let child = TestProcedure(name: "child")
        child.addDependency(late)
        let group = GroupProcedure(operations: [child])
        group.name = "group"
        queue.addOperation(group)
        queue.addOperation(late)
        blocker.release()
        wait(for: group, late, timeout: bound)
        XCTAssertEqual(misuse.all.filter { $0.kind == .deadlock }.count, 1, "\(misuse.all)")
    }

    /// `child` waits for category A behind `holder`; once `holder` finishes, `both` is first in
    /// A's line but still waits for B, which the child's group holds: the line moving on
    /// closes the cycle.
    func testACycleClosedByACategoryLineMovingOnIsReportedAndEnded() {
        let a = category(), b = category()
        let queue = ProcedureQueue()
        let holder = HeldProcedure(name: "holder")
        holder.addCondition(MutuallyExclusive<Never>(category: a))
        queue.addOperation(holder)
        wait(for: [holder.executing], timeout: bound)
        let gate = HeldProcedure(name: "gate")
        let group = GroupProcedure(operations: [gate])
        group.name = "group"
        group.addCondition(MutuallyExclusive<Never>(category: b))
        queue.addOperation(group)
        wait(for: [gate.executing], timeout: bound)
        let both = TestProcedure(name: "both")
        both.addCondition(MutuallyExclusive<Never>(category: a))
        both.addCondition(MutuallyExclusive<Never>(category: b))
        queue.addOperation(both)
        waitUntil("both waits for holder") { Self.reason(both).contains("held by holder") }
        let child = TestProcedure(name: "child")
        child.addCondition(MutuallyExclusive<Never>(category: a))
        group.addChild(child)
        waitUntil("child waits for holder") { Self.reason(child).contains("held by holder") }
        holder.release()
        gate.release()
        wait(for: group, both, holder, timeout: bound)
        XCTAssertEqual(misuse.all.filter { $0.kind == .deadlock }.count, 1, "\(misuse.all)")
    }

    /// The group holds the category `taker` waits for; the child added afterwards depends on
    /// `taker`: the child's dependency closes the cycle.
    func testACycleClosedByTheDependencyOfAChildAddedToARunningGroupIsReportedAndEnded() {
        let shared = category()
        let gate = HeldProcedure(name: "gate")
        let group = GroupProcedure(operations: [gate])
        group.name = "group"
        group.addCondition(MutuallyExclusive<Never>(category: shared))
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [gate.executing], timeout: bound)
        let taker = TestProcedure(name: "taker")
        taker.addCondition(MutuallyExclusive<Never>(category: shared))
        queue.addOperation(taker)
        waitUntil("taker waits for the group's category") { Self.reason(taker).contains("held by group") }
        let child = TestProcedure(name: "child")
        child.addDependency(taker)
        group.addChild(child)
        gate.release()
        wait(for: group, taker, timeout: bound)
        XCTAssertEqual(misuse.all.filter { $0.kind == .deadlock }.count, 1, "\(misuse.all)")
    }

    /// The group depends on `outside`, which depends on the group's own child: the child
    /// waits for its group to start, the group for `outside`, `outside` for the child.
    func testAGroupDependingOnAProcedureThatDependsOnItsOwnChildIsReportedAndEnded() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        group.name = "group"
        let outside = TestProcedure(name: "outside")
        outside.addDependency(child)
        group.addDependency(outside)
        let queue = ProcedureQueue()
        queue.addOperation(outside)
        queue.addOperation(group)
        wait(for: group, outside, timeout: bound)
        XCTAssertEqual(misuse.all.filter { $0.kind == .deadlock || $0.kind == .dependencyCycle }.count, 1, "\(misuse.all)")
    }

    /// `outside`, added once the group runs, depends on the group, whose child depends on
    /// `outside`: the group waits for its child, the child for `outside`, `outside` for the group.
    func testAProcedureDependingOnARunningGroupWhoseChildDependsOnItIsReportedAndEnded() {
        let gate = HeldProcedure(name: "gate")
        let outside = TestProcedure(name: "outside")
        let child = TestProcedure(name: "child")
        child.addDependency(outside)
        let group = GroupProcedure(operations: [gate, child])
        group.name = "group"
        outside.addDependency(group)
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [gate.executing], timeout: bound)
        queue.addOperation(outside)
        gate.release()
        wait(for: group, outside, timeout: bound)
        XCTAssertEqual(misuse.all.filter { $0.kind == .deadlock || $0.kind == .dependencyCycle }.count, 1, "\(misuse.all)")
    }
}
