import Foundation
import ProceduresTesting
import XCTest

/// Cancelling nested groups: a cancel reaches every level below the cancelled group and never
/// travels up; it works before the groups start and through deep nesting.
final class NestedGroupCancellationTests: MisuseRecordingTestCase {
    func testCancellingOuterGroupCancelsInnerGroupsAndGrandchildren() {
        let (grandchildren, executing) = runningChildren(3, prefix: "grandchild")
        let inner = GroupProcedure(operations: grandchildren)
        inner.name = "inner"
        let (siblings, siblingExecuting) = runningChildren(1, prefix: "sibling")
        let outer = GroupProcedure(operations: [inner] + siblings)
        outer.name = "outer"
        let innerUnfinished = unfinishedChildrenWhenFinishing(inner)
        let grandchildrenFinishedBeforeOuter = LockedBox<Bool?>(nil)
        outer.addWillFinishBlockObserver { outer, _ in
            grandchildrenFinishedBeforeOuter.mutate {
                $0 = grandchildren.allSatisfy(\.isFinished) && outer.children.allSatisfy(\.isFinished)
            }
        }
        _ = startGroup(outer, waitingFor: executing)
        wait(for: [siblingExecuting], timeout: 10)

        let error = TestError("outer")
        outer.cancel(withError: error)
        wait(for: outer, timeout: 10)

        assertProcedureCancelled(outer, withErrors: true)
        XCTAssertEqual(outer.errors.compactMap { $0 as? TestError }, [error])
        XCTAssertEqual(outer.errors.count, 1)
        XCTAssertEqual(grandchildrenFinishedBeforeOuter.value, true)
        XCTAssertEqual(innerUnfinished.value, [])

        assertProcedureCancelled(inner, withErrors: true)
        // The inner group carries its own cancel error (from its parent), not echoes.
        XCTAssertEqual(inner.errors.count, 1, "\(inner.errors)")
        XCTAssertEqual(parentCancelledErrors(inner.errors)?.compactMap { $0 as? TestError }, [error])
        for procedure in grandchildren + siblings { assertProcedureCancelled(procedure, withErrors: true) }
    }

    func testCancellingInnerGroupDoesNotCancelOuterGroup() {
        let (grandchildren, executing) = runningChildren(2, prefix: "grandchild")
        let inner = GroupProcedure(operations: grandchildren)
        let sibling = TestProcedure(name: "sibling", delay: 0.05)
        let outer = GroupProcedure(operations: [inner, sibling])
        _ = startGroup(outer, waitingFor: executing)

        inner.cancel()
        wait(for: outer, timeout: 10)
        XCTAssertFalse(outer.isCancelled)
        assertProcedureFinished(outer)
        assertProcedureCancelled(inner)
        assertProcedureFinished(sibling)
        for grandchild in grandchildren { assertProcedureCancelled(grandchild) }
    }

    func testNestedGroupsCancelledBeforeStart() {
        let grandchildren = (0..<3).map { TestProcedure(name: "grandchild \($0)") }
        let inner = CountingGroup(operations: grandchildren)
        let outer = CountingGroup(operations: [inner])
        outer.cancel()
        wait(for: outer, timeout: 10)
        assertProcedureCancelled(outer)
        assertProcedureCancelled(inner)
        XCTAssertEqual(outer.executions.value, 0)
        XCTAssertEqual(inner.executions.value, 0)
        for grandchild in grandchildren {
            assertProcedureCancelled(grandchild)
            XCTAssertEqual(grandchild.executeCount, 0)
        }
    }

    func testDeeplyNestedCancelReachesTheBottom() {
        let (leaves, executing) = runningChildren(1, prefix: "leaf")
        var group = GroupProcedure(operations: leaves)
        var groups = [group]
        for _ in 0..<10 {
            group = GroupProcedure(operations: [group])
            groups.append(group)
        }
        let top = group
        _ = startGroup(top, waitingFor: executing)

        top.cancel()
        wait(for: top, timeout: 10)
        for group in groups { assertProcedureCancelled(group) }
        assertProcedureCancelled(leaves[0])
    }
}
