import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// Groups at scale: deep nesting, very many children, and cancels that race children being
/// added at every level; everything finishes, and late children are cancelled, not executed.
final class GroupNestingStressTests: MisuseRecordingTestCase {
    /// 1,000 nested groups, cancelled from outside while the innermost child runs, all finish.
    func testThousandNestedGroupsCancelledFromOutsideAllFinish() {
        let leaf = BlockProcedure(asyncBlock: { procedure in
            procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
        })
        let executing = expectation(description: "leaf executing")
        leaf.addDidExecuteBlockObserver { _ in executing.fulfill() }
        var groups: [GroupProcedure] = []
        var inner: Procedure = leaf
        for _ in 0..<1_000 {
            let group = GroupProcedure(operations: [inner])
            groups.append(group)
            inner = group
        }
        let outer = groups[groups.count - 1]
        ProcedureQueue().addOperation(outer)
        wait(for: [executing], timeout: 20)
        outer.cancel(withError: TestError("stop"))
        wait(forAll: groups + [leaf], timeout: 20)
        XCTAssertTrue(groups.allSatisfy { $0.isCancelled && $0.isFinished })
        XCTAssertTrue(leaf.isCancelled)
    }

    /// One group with 100,000 children finishes, with every child finished.
    func testHundredThousandChildrenInOneGroupFinish() {
        let count = stressIterations(100_000)
        let ran = LockedBox(0)
        let children = (0..<count).map { _ in BlockProcedure { ran.mutate { $0 += 1 } } }
        let group = GroupProcedure(operations: children)
        wait(for: group, timeout: 60)
        assertProcedureFinished(group)
        XCTAssertEqual(ran.value, count)
        XCTAssertEqual(group.children.count, count)
    }

    /// Nested groups cancelled while another thread keeps adding children to every level:
    /// everything finishes and every late child is cancelled, not executed.
    func testNestedGroupsCancelledWhileChildrenAreAddedAllFinish() {
        let iterations = stressIterations(200)
        var everything: [Procedure] = []
        for _ in 0..<iterations {
            let inner = GroupProcedure(operations: [DelayProcedure(by: 10)])
            let outer = GroupProcedure(operations: [inner, DelayProcedure(by: 10)])
            let queue = ProcedureQueue()
            queue.addOperation(outer)
            let late = LockedBox<[LateChild]>([])
            ThreadRace.run(
                {
                    for index in 0..<8 {
                        let child = LateChild(name: "late \(index)")
                        (index.isMultiple(of: 2) ? inner : outer).addChild(child)
                        late.mutate { $0.append(child) }
                    }
                },
                { outer.cancel() })
            // A child refused by a group that had begun finishing is never enqueued: it must
            // be reported (about the group), and it is left out of the wait (which would run it).
            let refused = late.value.filter { !$0.isEnqueued }
            for (group, parity) in [(inner, 0), (outer, 1)] {
                let refusedHere = refused.filter { Int($0.name!.split(separator: " ")[1])! % 2 == parity }.count
                XCTAssertEqual(
                    misuse.kinds(about: group).filter { $0 == .childAddedToFinishingGroup }.count, refusedHere)
            }
            everything += [outer, inner] + late.value.filter(\.isEnqueued)
        }
        wait(forAll: everything, timeout: 30)
        // A late child was cancelled before it started (and never executed), or it executed
        // (and the cancel, if it came, was delivered while it ran): never executed after its
        // cancellation, never neither.
        for child in everything.compactMap({ $0 as? LateChild }) {
            XCTAssertTrue(child.isCancelled || child.didExecute, child.stateSummary)
            XCTAssertFalse(child.wasCancelledWhenExecuteBegan, "\(child.stateSummary) executed after its cancellation")
        }
        XCTAssertTrue(everything.allSatisfy(\.isFinished))
    }

    /// Remembers whether its cancellation had been delivered (its did-cancel hook had run)
    /// when `execute()` began: the library must never call `execute()` then. (`isCancelled`
    /// alone cannot tell: it turns true as soon as a cancel is accepted, which may be while
    /// the start is already under way, and the hooks then run after `execute()`.)
    private final class LateChild: TestProcedure, @unchecked Sendable {
        private let cancelDelivered = LockedBox(false)
        private let deliveredAtExecute = LockedBox(false)
        var wasCancelledWhenExecuteBegan: Bool { deliveredAtExecute.value }
        override func procedureDidCancel(withErrors errors: [any Error]) {
            cancelDelivered.mutate { $0 = true }
            super.procedureDidCancel(withErrors: errors)
        }
        override func execute() {
            let delivered = cancelDelivered.value
            deliveredAtExecute.mutate { $0 = delivered }
            super.execute()
        }
    }
}
