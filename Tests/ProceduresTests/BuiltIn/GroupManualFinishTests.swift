import Foundation
import ProceduresTesting
import XCTest

/// A group whose subclass says it does not finish automatically finishes only once its
/// children have finished and the subclass called `finish` (ProcedureKit's
/// `disableAutomaticFinishing`).
private final class ManualGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: no stored properties of its own.
    override var finishesAutomatically: Bool { false }
}

final class GroupManualFinishTests: MisuseRecordingTestCase {
    func testTheGroupDoesNotFinishWhenItsLastChildDoesUntilFinishIsCalled() {
        let child = TestProcedure(name: "child")
        let group = ManualGroup(operations: [child])
        let finished = expectation(description: "the group finishes before finish() is called")
        finished.isInverted = true
        group.addDidFinishBlockObserver { _, _ in finished.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: child)
        wait(for: [finished], timeout: 0.3)
        XCTAssertFalse(group.isFinished, "it waits for finish()")
        group.finish(withError: TestError("done by hand"))
        wait(for: group)
        XCTAssertEqual(group.errors.map { "\($0)" }, ["\(TestError("done by hand"))"])
        XCTAssertEqual(misuse.all.count, 0)
    }

    func testFinishCalledBeforeTheChildrenFinishWaitsForThem() {
        let gate = TestProcedure(name: "gate")
        let child = BlockProcedure {}
        child.addDependency(gate)
        let group = ManualGroup(operations: [child])
        group.addWillExecuteBlockObserver { group in group.finish() }
        let queue = ProcedureQueue()
        queue.addOperation(group)
        XCTAssertFalse(group.isFinished)
        queue.addOperation(gate)
        wait(for: group)
        XCTAssertTrue(child.isFinished, "finished after its child")
    }

    func testASecondFinishIsReported() {
        let group = ManualGroup(operations: [])
        group.addWillExecuteBlockObserver { group in
            group.finish()
            group.finish()
        }
        wait(for: group)
        XCTAssertEqual(misuse.kinds(about: group), [.finishedTwice])
    }

    func testAnAutomaticGroupStillReportsFinishByHand() {
        let group = GroupProcedure(operations: [])
        group.finish()
        XCTAssertEqual(misuse.kinds(about: group), [.finishedByHand])
    }
}
