import Foundation
import ProceduresTesting
import XCTest

/// Waits that could never end because a procedure would wait for itself are reported as
/// misuse and failed at once, never left to hang. Every wait here is bounded, so that without
/// the detection the test fails instead of hanging.
final class WaitForItselfTests: MisuseRecordingTestCase {
    private let bound: TimeInterval = 5

    private func deadlockReason(_ procedure: Procedure) -> String? {
        for case ProcedureError.deadlock(let reason) in procedure.errors { return reason }
        for case ProcedureError.multiple(let errors) in procedure.errors {
            for case ProcedureError.deadlock(let reason) in errors { return reason }
        }
        return nil
    }

    private func category() -> String { "wait-for-itself-\(UUID().uuidString)" }

    // MARK: - A category an enclosing group holds

    func testChildAskingForTheCategoryItsGroupHoldsIsCancelledAndTheGroupFinishes() {
        let shared = category()
        let child = TestProcedure(name: "child")
        child.addCondition(MutuallyExclusive(category: shared))
        let group = GroupProcedure(operations: [child])
        group.name = "group"
        group.addCondition(MutuallyExclusive(category: shared))
        wait(for: group, timeout: bound)
        assertProcedureCancelled(child, withErrors: true)
        XCTAssertFalse(child.didExecute)
        let reason = deadlockReason(child)
        XCTAssertTrue(reason?.contains("\"\(shared)\"") == true, "\(child.errors)")
        XCTAssertTrue(reason?.contains("group") == true, "\(child.errors)")
        XCTAssertEqual(misuse.kinds(about: child), [.deadlock])
        XCTAssertTrue(group.isFinished)
        waitUntilReleased(shared)  // the group released its category
    }

    func testGrandchildAskingForACategoryTheOuterGroupHoldsIsCancelled() {
        let shared = category()
        let grandchild = TestProcedure(name: "grandchild")
        grandchild.addCondition(MutuallyExclusive(category: "\(shared)-other"))
        grandchild.addCondition(MutuallyExclusive(category: shared))
        let inner = GroupProcedure(operations: [grandchild])
        inner.name = "inner"
        let outer = GroupProcedure(operations: [inner])
        outer.name = "outer"
        outer.addCondition(MutuallyExclusive(category: shared))
        wait(for: outer, timeout: bound)
        assertProcedureCancelled(grandchild, withErrors: true)
        XCTAssertTrue(deadlockReason(grandchild)?.contains("outer") == true, "\(grandchild.errors)")
        XCTAssertEqual(misuse.kinds(about: grandchild), [.deadlock])
        waitUntilReleased(shared)
        XCTAssertFalse(ExclusivityManager.isInUse("\(shared)-other"), "all-or-nothing: nothing was taken")
    }

    /// Its other category is held by a procedure outside the group, so the child is not first
    /// in that line either: it still waits for its own group, and that is found at once.
    func testChildAskingForItsGroupsCategoryAndOneHeldOutsideIsCancelledAndTheGroupFinishes() {
        let shared = category(), other = category()
        let holder = HeldProcedure(name: "holder")
        holder.addCondition(MutuallyExclusive(category: other))
        let queue = ProcedureQueue()
        queue.addOperation(holder)
        wait(for: [holder.executing], timeout: bound)
        let child = TestProcedure(name: "child")
        child.addCondition(MutuallyExclusive(category: other))
        child.addCondition(MutuallyExclusive(category: shared))
        let group = GroupProcedure(operations: [child])
        group.name = "group"
        group.addCondition(MutuallyExclusive(category: shared))
        queue.addOperation(group)
        wait(for: group, timeout: bound)
        assertProcedureCancelled(child, withErrors: true)
        XCTAssertEqual(deadlockReason(child), "child waits for category \"\(shared)\" held by group; group waits for its child child")
        XCTAssertEqual(misuse.kinds(about: child), [.deadlock])
        holder.release()
        wait(for: holder, timeout: bound)
        waitUntilReleased(shared)
        waitUntilReleased(other)
    }

    func testChildAskingForAnotherCategoryThanItsGroupRuns() {
        let child = TestProcedure(name: "child")
        child.addCondition(MutuallyExclusive(category: category()))
        let group = GroupProcedure(operations: [child])
        group.addCondition(MutuallyExclusive(category: category()))
        wait(for: group, timeout: bound)
        assertProcedureFinished(child)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    func testProcedureOutsideTheGroupWaitingForItsCategoryIsNotMisuse() {
        let shared = category()
        let inside = HeldProcedure(name: "inside")
        let group = GroupProcedure(operations: [inside])
        group.addCondition(MutuallyExclusive(category: shared))
        let outside = TestProcedure(name: "outside")
        outside.addCondition(MutuallyExclusive(category: shared))
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [inside.executing], timeout: bound)
        queue.addOperation(outside)
        inside.release()
        wait(forAll: [group, outside], timeout: bound)
        assertProcedureFinished(outside)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    // MARK: - A condition whose dependency waits for the guarded procedure

    func testConditionDependencyThatDependsOnTheGuardedProcedureCancelsIt() {
        let guarded = TestProcedure(name: "guarded")
        let dependency = TestProcedure(name: "dependency")
        dependency.addDependency(guarded)
        let condition = BlockCondition { true }
        condition.addDependency(dependency)
        guarded.addCondition(condition)
        wait(forAll: [guarded, dependency], timeout: bound)
        assertProcedureCancelled(guarded, withErrors: true)
        XCTAssertFalse(guarded.didExecute)
        XCTAssertEqual(deadlockReason(guarded).map { $0.contains("guarded waits for dependency, a dependency of its condition; dependency waits for its dependency guarded") }, true, "\(guarded.errors)")
        XCTAssertEqual(misuse.kinds(about: guarded), [.deadlock])
        assertProcedureFinished(dependency)
    }

    func testConditionDependencyWaitingThroughAChainIsFound() {
        let guarded = TestProcedure(name: "guarded")
        let middle = TestProcedure(name: "middle")
        middle.addDependency(guarded)
        let dependency = TestProcedure(name: "dependency")
        dependency.addDependency(middle)
        let condition = BlockCondition { true }
        condition.addDependency(dependency)
        guarded.addCondition(condition)
        wait(forAll: [guarded, middle, dependency], timeout: bound)
        assertProcedureCancelled(guarded, withErrors: true)
        XCTAssertEqual(
            deadlockReason(guarded).map {
                $0.contains(
                    "guarded waits for dependency, a dependency of its condition; dependency waits for its dependency middle; middle waits for its dependency guarded"
                )
            }, true, "\(guarded.errors)")
    }

    func testProducedConditionDependencyThatDependsOnTheGuardedProcedureIsFound() {
        let guarded = TestProcedure(name: "guarded")
        let produced = TestProcedure(name: "produced")
        produced.addDependency(guarded)
        let condition = BlockCondition { true }
        condition.produceDependency(produced)
        guarded.addCondition(condition)
        wait(for: guarded, timeout: bound)
        assertProcedureCancelled(guarded, withErrors: true)
        XCTAssertEqual(misuse.kinds(about: guarded), [.deadlock])
        XCTAssertFalse(produced.isEnqueued, "the produced dependency is never added: it could not run")
    }

    func testConditionOfAGroupDependingOnTheGroupsOwnChildIsFound() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        group.name = "group"
        let condition = BlockCondition { true }
        condition.addDependency(child)
        group.addCondition(condition)
        wait(for: group, timeout: bound)
        assertProcedureCancelled(group, withErrors: true)
        XCTAssertEqual(deadlockReason(group).map { $0.contains("group waits for child, a dependency of its condition; child waits for its group group to start") }, true, "\(group.errors)")
        XCTAssertFalse(child.didExecute)
    }

    func testConditionDependencyThatDoesNotWaitForTheGuardedProcedureIsEvaluated() {
        let guarded = TestProcedure(name: "guarded")
        let other = TestProcedure(name: "other")
        let dependency = TestProcedure(name: "dependency")
        dependency.addDependency(other)
        let condition = BlockCondition { true }
        condition.addDependency(dependency)
        guarded.addCondition(condition)
        wait(forAll: [other, dependency, guarded], timeout: bound)
        assertProcedureFinished(guarded)
        XCTAssertTrue(guarded.didExecute)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    /// Categories are released by the finished procedure's gate, among its did-finish
    /// observers: possibly just after the test's own observer said it finished.
    private func waitUntilReleased(_ category: String, file: StaticString = #filePath, line: UInt = #line) {
        let released = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in !ExclusivityManager.isInUse(category) }, object: nil)
        XCTAssertEqual(XCTWaiter().wait(for: [released], timeout: 10), .completed, "\(category) still held", file: file, line: line)
    }
}
