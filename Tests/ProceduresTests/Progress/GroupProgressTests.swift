import Foundation
import ProceduresTesting
import XCTest

/// A group's progress is its children's, weighted, children added later included.
final class GroupProgressTests: XCTestCase {
    func testGroupProgressFollowsItsChildrenIncludingThoseAddedLater() {
        let first = SteppedProcedure()
        let second = SteppedProcedure()
        let group = GroupProcedure(operations: [first, second])
        let progress = group.progress
        XCTAssertEqual(progress.totalUnitCount, 2)
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [first.executing, second.executing], timeout: 10)

        first.progress.totalUnitCount = 4
        first.progress.completedUnitCount = 2  // half of one of two children
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.25, accuracy: 1e-9)

        let later = SteppedProcedure()
        group.addChild(later)  // joins: now one of three children is half done
        XCTAssertEqual(group.progress.totalUnitCount, 3)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.5 / 3, accuracy: 1e-9)

        second.release()
        wait(for: [later.executing], timeout: 10)
        waitForProgress(of: group) { $0.completedUnitCount == 1 }
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1.5 / 3, accuracy: 1e-9)

        first.release()
        later.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
        XCTAssertEqual(group.progress.completedUnitCount, 3)
    }

    func testWeightsShareOutTheGroupsProgress() {
        let heavy = SteppedProcedure()
        let light = SteppedProcedure()
        let group = GroupProcedure()
        group.addChild(heavy, progressWeight: 8)
        group.addChild(light, progressWeight: 2)
        XCTAssertEqual(group.progress.totalUnitCount, 10)
        ProcedureQueue().addOperation(group)
        wait(for: [heavy.executing, light.executing], timeout: 10)
        light.release()
        waitForProgress(of: group) { $0.completedUnitCount == 2 }
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.2, accuracy: 1e-9)
        heavy.progress.totalUnitCount = 2
        heavy.progress.completedUnitCount = 1
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.6, accuracy: 1e-9)
        heavy.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
    }

    func testProgressAskedForWhileTheGroupRunsCountsTheChildrenSoFar() {
        let done = BlockProcedure {}
        let running = SteppedProcedure()
        let group = GroupProcedure(operations: [done, running])
        ProcedureQueue().addOperation(group)
        wait(for: [running.executing], timeout: 10)
        wait(for: done)
        XCTAssertEqual(group.progress.totalUnitCount, 2)
        waitForProgress(of: group) { $0.completedUnitCount == 1 }
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.5)
        running.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
    }

    func testNestedGroupsPassPartialProgressUp() {
        let leaf = SteppedProcedure()
        let inner = GroupProcedure(operations: [leaf, BlockProcedure {}])
        let sibling = SteppedProcedure()
        let outer = GroupProcedure(operations: [inner, sibling])
        XCTAssertEqual(outer.progress.totalUnitCount, 2)
        ProcedureQueue().addOperation(outer)
        wait(for: [leaf.executing], timeout: 10)
        leaf.progress.totalUnitCount = 2
        leaf.progress.completedUnitCount = 1
        // leaf: 1/2; inner: (0.5 + 1) / 2 once its block finished; outer: 0.75 / 2.
        waitForProgress(of: outer) { abs($0.fractionCompleted - 0.375) < 1e-9 }
        leaf.release()
        sibling.release()
        wait(for: outer)
        XCTAssertEqual(outer.currentProgress.fractionCompleted, 1)
    }

    func testCancelledGroupStopsWhereItWasWhileItsChildrenDrain() {
        let first = SteppedProcedure()
        let second = SteppedProcedure()
        let group = GroupProcedure(operations: [first, second])
        ProcedureQueue().addOperation(group)
        wait(for: [first.executing, second.executing], timeout: 10)
        first.release()
        waitForProgress(of: group) { $0.completedUnitCount == 1 }
        group.cancel()
        second.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.5)
        XCTAssertTrue(group.currentProgress.isCancelled)
        XCTAssertTrue(group.progress.isCancelled)
    }

    func testChildCancelledOnItsOwnKeepsWhatItDidAndTheGroupStillCompletes() {
        let cancelled = SteppedProcedure()
        let other = SteppedProcedure()
        let group = GroupProcedure(operations: [cancelled, other])
        ProcedureQueue().addOperation(group)
        wait(for: [cancelled.executing, other.executing], timeout: 10)
        cancelled.progress.totalUnitCount = 4
        cancelled.progress.completedUnitCount = 1
        cancelled.cancel()
        cancelled.release()
        wait(for: cancelled)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.125)
        other.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
    }

    func testPlainOperationChildrenCountWhenTheyFinish() {
        let block = BlockOperation {}
        let held = SteppedProcedure()
        let group = GroupProcedure(operations: [block, held])
        XCTAssertEqual(group.progress.totalUnitCount, 2)
        ProcedureQueue().addOperation(group)
        wait(for: [held.executing], timeout: 10)
        waitForProgress(of: group) { $0.completedUnitCount == 1 }
        held.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
    }

    func testUnitsSetOnAGroupReplaceItsChildren() {
        let child = SteppedProcedure()
        let group = GroupProcedure(operations: [child])
        group.progress.totalUnitCount = 100
        group.progress.completedUnitCount = 30
        ProcedureQueue().addOperation(group)
        wait(for: [child.executing], timeout: 10)
        child.progress.totalUnitCount = 1
        child.progress.completedUnitCount = 1
        XCTAssertEqual(group.currentProgress.fractionCompleted, 0.3)
        child.release()
        wait(for: group)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
    }
}

extension XCTestCase {
    /// Waits until `procedure`'s progress, as its observers see it, satisfies `condition`.
    func waitForProgress(
        of procedure: Procedure, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
        _ condition: @escaping @Sendable (ProgressUpdate) -> Bool
    ) {
        let reached = XCTestExpectation(description: "progress of \(procedure.name ?? "procedure")")
        reached.assertForOverFulfill = false
        let observation = procedure.observeProgress(minimumInterval: 0) { if condition($0) { reached.fulfill() } }
        if XCTWaiter().wait(for: [reached], timeout: timeout) != .completed {
            XCTFail("progress never got there; it is \(procedure.currentProgress)", file: file, line: line)
        }
        observation.cancel()
    }
}
