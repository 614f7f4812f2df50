import Foundation
import ProceduresTesting
import XCTest

/// A group whose `execute()` adds one child before and one after calling `super.execute()`.
private final class AddingInExecuteGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: the children are immutable.
    let before = TestProcedure(name: "before", delay: 0.05)
    let after = TestProcedure(name: "after", delay: 0.05)

    override func execute() {
        addChild(before)
        super.execute()
        addChild(after)
    }
}

/// A group that rewrites errors from children named "rewrite" and drops those from "drop".
private final class TransformingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: `seen` is only touched under its own lock.
    let seen = LockedBox<[String]>([])

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        seen.mutate { $0.append(child.name ?? "?") }
        switch child.name {
        case "rewrite": return [TestError("rewritten")]
        case "drop": return []
        default: return errors
        }
    }
}

final class GroupProcedureTests: MisuseRecordingTestCase {
    // MARK: - Running children

    func testRunsAllChildren() {
        let children = (0..<20).map { TestProcedure(name: "child \($0)") }
        let group = GroupProcedure(operations: children)
        wait(for: group)
        assertProcedureFinished(group)
        for child in children {
            assertProcedureFinished(child)
            XCTAssertEqual(child.executeCount, 1, child.name ?? "")
        }
    }

    func testEmptyGroupFinishes() {
        let group = GroupProcedure()
        wait(for: group, timeout: 10)
        assertProcedureFinished(group)
        XCTAssertTrue(group.children.isEmpty)
    }

    func testFinishesOnlyAfterEveryChildFinished() {
        let children = [0.0, 0.02, 0.05, 0.1].map { TestProcedure(name: "\($0)", delay: $0) }
        let group = GroupProcedure(operations: children)
        let unfinishedAtWillFinish = LockedBox<[String]?>(nil)
        let unfinishedAtDidFinish = LockedBox<[String]?>(nil)
        group.addWillFinishBlockObserver { group, _ in
            unfinishedAtWillFinish.mutate { $0 = group.children.filter { !$0.isFinished }.map { $0.name ?? "?" } }
        }
        group.addDidFinishBlockObserver { group, _ in
            unfinishedAtDidFinish.mutate { $0 = group.children.filter { !$0.isFinished }.map { $0.name ?? "?" } }
        }
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(unfinishedAtWillFinish.value, [])
        XCTAssertEqual(unfinishedAtDidFinish.value, [])
    }

    func testChildrenListsThemInOrder() {
        let a = TestProcedure(name: "a")
        let b = TestProcedure(name: "b")
        let c = TestProcedure(name: "c")
        let group = GroupProcedure(operations: [a])
        group.addChild(b)
        group.addChildren([c])
        XCTAssertEqual(group.children.map(ObjectIdentifier.init), [a, b, c].map(ObjectIdentifier.init))
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(group.children.count, 3)
    }

    func testChildrenAddedBeforeExecutionWaitForTheGroup() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure()
        group.addChild(child)
        group.addChildren([TestProcedure(name: "second"), TestProcedure(name: "third")])
        // Not started: its children wait for it.
        XCTAssertFalse(child.isExecuting)
        XCTAssertFalse(child.isFinished)
        XCTAssertEqual(child.executeCount, 0)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(group.children.count, 3)
        XCTAssertTrue(group.children.allSatisfy(\.isFinished))
        assertProcedureFinished(child)
    }

    func testChildAddedFromAChildsObserverDuringExecution() {
        let late = TestProcedure(name: "late", delay: 0.05)
        let first = TestProcedure(name: "first")
        let group = GroupProcedure(operations: [first])
        // Will-finish: the group still waits for `first`, so it cannot have begun finishing.
        first.addWillFinishBlockObserver { _, _ in group.addChild(late) }
        let lateFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in lateFinishedFirst.mutate { $0 = late.isFinished } }
        wait(for: group)
        assertProcedureFinished(group)
        assertProcedureFinished(late)
        XCTAssertEqual(late.executeCount, 1)
        XCTAssertEqual(lateFinishedFirst.value, true)
        XCTAssertEqual(group.children.count, 2)
        XCTAssertEqual(misuse.kinds(about: group), [])
    }

    func testGroupFinishesAfterItsChildrensDidFinishObservers() {
        let children = (0..<5).map { TestProcedure(name: "child \($0)", delay: 0.01 * Double($0 % 2)) }
        let observed = LockedBox(0)
        for child in children { child.addDidFinishBlockObserver { _, _ in observed.mutate { $0 += 1 } } }
        let group = GroupProcedure(operations: children)
        let observedAtWillFinish = LockedBox<Int?>(nil)
        group.addWillFinishBlockObserver { _, _ in observedAtWillFinish.mutate { $0 = observed.value } }
        wait(for: group)
        XCTAssertEqual(observedAtWillFinish.value, 5)
    }

    func testChildAddedFromTheLastChildsDidFinishObserverRuns() {
        let late = TestProcedure(name: "late", delay: 0.02)
        let only = TestProcedure(name: "only")
        let group = GroupProcedure(operations: [only])
        only.addDidFinishBlockObserver { _, _ in group.addChild(late) }
        wait(for: group)
        assertProcedureFinished(group)
        assertProcedureFinished(late)
        XCTAssertEqual(late.executeCount, 1)
        XCTAssertEqual(misuse.kinds(about: group), [])
    }

    func testChildrenAddedFromAChildsExecuteDuringExecution() {
        let added = (0..<5).map { TestProcedure(name: "added \($0)", delay: 0.02) }
        let group = GroupProcedure()
        let adder = BlockProcedure { group.addChildren(added) }
        group.addChild(adder)
        wait(for: group)
        assertProcedureFinished(group)
        for child in added { assertProcedureFinished(child) }
        XCTAssertEqual(group.children.count, 6)
    }

    /// A child can reach the group's queue as `ProcedureQueue.current`; a barrier added there
    /// becomes a child too, so the group waits for it.
    func testBarrierOnTheGroupsQueueIsWaitedForByTheGroup() {
        let barrierRan = LockedBox(false)
        let sibling = TestProcedure(name: "sibling")
        let child = BlockProcedure {
            guard let queue = ProcedureQueue.current as? ProcedureQueue else {
                XCTFail("a child runs on the group's ProcedureQueue")
                return
            }
            queue.addBarrierBlock { barrierRan.mutate { $0 = true } }
        }
        let group = GroupProcedure(operations: [child, sibling])
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertTrue(barrierRan.value, "the group finished before its barrier ran")
        XCTAssertEqual(group.children.count, 3)
    }

    func testChildrenAddedInExecuteOverrideBeforeAndAfterSuper() {
        let group = AddingInExecuteGroup()
        let bothFinished = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { group, _ in
            bothFinished.mutate { $0 = group.before.isFinished && group.after.isFinished }
        }
        wait(for: group)
        assertProcedureFinished(group)
        assertProcedureFinished(group.before)
        assertProcedureFinished(group.after)
        XCTAssertEqual(bothFinished.value, true)
        XCTAssertEqual(group.children.map(\.name), ["before", "after"])
    }

    func testChildAddedFromExecuteOverrideToAnEmptyGroup() {
        // With no children at all, only the check after execute() returns may finish it.
        let group = AddingInExecuteGroup()
        XCTAssertTrue(group.children.isEmpty)
        wait(for: group)
        XCTAssertEqual(group.before.executeCount, 1)
        XCTAssertEqual(group.after.executeCount, 1)
    }

    // MARK: - Concurrency and suspension

    func testMaxConcurrentOperationCountOneSerialisesChildren() {
        let probe = ConcurrencyProbe()
        let group = GroupProcedure(operations: (0..<8).map { _ in probe.makeChild() })
        group.maxConcurrentOperationCount = 1
        XCTAssertEqual(group.maxConcurrentOperationCount, 1)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(probe.startedCount, 8)
        XCTAssertEqual(probe.maximum, 1)
    }

    func testMaxConcurrentOperationCountTwoAllowsAtMostTwo() {
        let probe = ConcurrencyProbe()
        let group = GroupProcedure(operations: (0..<10).map { _ in probe.makeChild() })
        group.maxConcurrentOperationCount = 2
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(probe.startedCount, 10)
        XCTAssertLessThanOrEqual(probe.maximum, 2)
    }

    func testDependenciesBetweenChildrenAreRespected() {
        let order = LockedBox<[Int]>([])
        let children = (0..<10).map { i in BlockProcedure { order.mutate { $0.append(i) } } }
        for (previous, next) in zip(children, children.dropFirst()) { next.addDependency(previous) }
        let group = GroupProcedure(operations: children.reversed())
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(order.value, Array(0..<10))
    }

    func testIsSuspendedHoldsChildren() {
        let child = TestProcedure(name: "held")
        let group = GroupProcedure(operations: [child])
        group.isSuspended = true
        XCTAssertTrue(group.isSuspended)
        let groupExecuted = expectation(description: "group executed")
        group.addDidExecuteBlockObserver { _ in groupExecuted.fulfill() }
        let childStarted = expectation(description: "child must not start while suspended")
        childStarted.isInverted = true
        child.addWillExecuteBlockObserver { _ in childStarted.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [groupExecuted], timeout: 10)
        wait(for: [childStarted], timeout: 0.3)
        XCTAssertEqual(child.executeCount, 0)
        XCTAssertFalse(group.isFinished)

        group.isSuspended = false
        wait(for: group, timeout: 10)
        assertProcedureFinished(group)
        assertProcedureFinished(child)
    }

    // MARK: - Produced operations

    func testOperationsProducedByChildrenBelongToTheGroup() {
        let produced = TestProcedure(name: "produced", delay: 0.1)
        let producer = TestProcedure(name: "producer", produced: produced)
        let group = GroupProcedure(operations: [producer])
        let producedFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in producedFinishedFirst.mutate { $0 = produced.isFinished } }
        wait(for: group)
        assertProcedureFinished(group)
        assertProcedureFinished(produced)
        XCTAssertEqual(produced.executeCount, 1)
        XCTAssertEqual(producedFinishedFirst.value, true)
        XCTAssertTrue(group.children.contains { $0 === produced })
    }

    func testProducedOperationErrorsAreAggregated() {
        let error = TestError("produced")
        let produced = TestProcedure(name: "produced", delay: 0.02, error: error)
        let group = GroupProcedure(operations: [TestProcedure(name: "producer", produced: produced)])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(testErrorIDs(group.errors), ["produced"])
    }

    func testProducedPlainOperationBelongsToTheGroup() {
        let ran = LockedBox(false)
        let produced = BlockOperation { ran.mutate { $0 = true } }
        let group = GroupProcedure(operations: [TestProcedure(name: "producer", produced: produced)])
        let producedFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in producedFinishedFirst.mutate { $0 = produced.isFinished } }
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertTrue(ran.value)
        XCTAssertEqual(producedFinishedFirst.value, true)
    }

    // MARK: - Errors

    func testChildErrorsAreAggregated() {
        let group = GroupProcedure(operations: [
            TestProcedure(name: "a", error: TestError("a")),
            TestProcedure(name: "ok"),
            TestProcedure(name: "b", delay: 0.02, error: TestError("b")),
        ])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 2)
        XCTAssertEqual(testErrorIDs(group.errors), ["a", "b"])
    }

    func testChildErrorsReachTheGroupsFinishHooks() {
        let group = GroupProcedure(operations: [TestProcedure(name: "a", error: TestError("a"))])
        let willFinishErrors = LockedBox<[String]>([])
        let didFinishErrors = LockedBox<[String]>([])
        group.addWillFinishBlockObserver { _, errors in willFinishErrors.mutate { $0 = testErrorIDs(errors) } }
        group.addDidFinishBlockObserver { _, errors in didFinishErrors.mutate { $0 = testErrorIDs(errors) } }
        wait(for: group)
        XCTAssertEqual(willFinishErrors.value, ["a"])
        XCTAssertEqual(didFinishErrors.value, ["a"])
    }

    func testTransformChildErrorsRewritesAndDrops() {
        let group = TransformingGroup(operations: [
            TestProcedure(name: "rewrite", error: TestError("original")),
            TestProcedure(name: "drop", error: TestError("dropped")),
            TestProcedure(name: "keep", error: TestError("kept")),
            TestProcedure(name: "fine"),
        ])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 2)
        XCTAssertEqual(testErrorIDs(group.errors), ["kept", "rewritten"])
        // Only children that failed are passed to the hook.
        XCTAssertEqual(group.seen.value.sorted(), ["drop", "keep", "rewrite"])
    }

    func testTransformDroppingEveryErrorLeavesTheGroupSucceeding() {
        let group = TransformingGroup(operations: [
            TestProcedure(name: "drop", error: TestError("x")),
            TestProcedure(name: "drop", error: TestError("y")),
        ])
        wait(for: group)
        assertProcedureFinished(group)
    }

    func testChildFailingDoesNotCancelTheGroupOrItsSiblings() {
        let failing = TestProcedure(name: "failing", error: TestError("failed"))
        let sibling = TestProcedure(name: "sibling", delay: 0.1)
        let laterSibling = TestProcedure(name: "later", delay: 0.05)
        laterSibling.addDependency(failing)
        let group = GroupProcedure(operations: [failing, sibling, laterSibling])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertFalse(group.isCancelled)
        assertProcedureFinished(sibling)
        assertProcedureFinished(laterSibling)
        XCTAssertEqual(sibling.executeCount, 1)
        XCTAssertEqual(laterSibling.executeCount, 1)
    }

    // MARK: - Adding too late

    func testChildAddedAfterTheGroupFinishedIsIgnoredAndReported() {
        let group = GroupProcedure(operations: [TestProcedure(name: "only")])
        wait(for: group)
        assertProcedureFinished(group)
        let late = TestProcedure(name: "late")
        group.addChild(late)
        XCTAssertEqual(misuse.kinds(about: group), [.childAddedToFinishingGroup])
        XCTAssertFalse(group.children.contains { $0 === late })
        XCTAssertEqual(group.children.count, 1)
        XCTAssertFalse(late.isExecuting)
        XCTAssertFalse(late.isFinished)
        XCTAssertEqual(late.executeCount, 0)
        assertProcedureFinished(group)
    }

    func testChildrenAddedAfterTheGroupFinishedAreEachReported() {
        let group = GroupProcedure()
        wait(for: group)
        group.addChildren([TestProcedure(name: "x"), TestProcedure(name: "y")])
        XCTAssertEqual(misuse.kinds(about: group), [.childAddedToFinishingGroup, .childAddedToFinishingGroup])
        XCTAssertTrue(group.children.isEmpty)
    }

    func testChildAddedFromTheGroupsWillFinishObserverIsRejected() {
        let group = GroupProcedure(operations: [TestProcedure(name: "only")])
        let late = TestProcedure(name: "late")
        group.addWillFinishBlockObserver { group, _ in group.addChild(late) }
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(misuse.kinds(about: group), [.childAddedToFinishingGroup])
        XCTAssertEqual(late.executeCount, 0)
    }

    // MARK: - Groups on a queue

    func testDependentOfAGroupWaitsForAllItsChildren() {
        let children = (0..<5).map { TestProcedure(name: "child \($0)", delay: 0.02) }
        let group = GroupProcedure(operations: children)
        let childrenFinishedFirst = LockedBox<Bool?>(nil)
        let dependent = BlockProcedure { childrenFinishedFirst.mutate { $0 = children.allSatisfy(\.isFinished) } }
        dependent.addDependency(group)
        wait(for: group, dependent)
        assertProcedureFinished(dependent)
        XCTAssertEqual(childrenFinishedFirst.value, true)
    }

    func testGroupCallbacksDoNotOverlap() {
        let recorder = ProcedureEventRecorder()
        let children = (0..<20).map { TestProcedure(name: "child \($0)", delay: 0.001 * Double($0 % 3), recorder: recorder) }
        let group = GroupProcedure(operations: children)
        group.addObserver(recorder)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(recorder.overlaps, [])
        // The children given at init are reported to the add observers as the group starts them.
        let adds: [ProcedureEventRecorder.Event] = Array(repeating: .willAdd, count: 20) + Array(repeating: .didAdd, count: 20)
        XCTAssertEqual(recorder.events(of: group), [.willExecute] + adds + [.didExecute, .willFinish, .didFinish])
    }

    // MARK: - Defaults and sizes

    func testDefaults() {
        let group = GroupProcedure()
        XCTAssertFalse(group.isSuspended)
        XCTAssertEqual(group.maxConcurrentOperationCount, OperationQueue.defaultMaxConcurrentOperationCount)
        XCTAssertTrue(group.children.isEmpty)
        XCTAssertTrue(group.errors.isEmpty)
    }

    func testThousandChildren() {
        let runs = LockedBox(0)
        let children = (0..<1000).map { _ in BlockProcedure { runs.mutate { $0 += 1 } } }
        let group = GroupProcedure(operations: children)
        wait(for: group, timeout: 10)
        assertProcedureFinished(group)
        XCTAssertEqual(runs.value, 1000)
    }

    func testChildDependingOnAProcedureOutsideTheGroup() {
        let outside = TestProcedure(name: "outside", delay: 0.05)
        let outsideFinishedFirst = LockedBox<Bool?>(nil)
        let inside = BlockProcedure { outsideFinishedFirst.mutate { $0 = outside.isFinished } }
        inside.addDependency(outside)
        let group = GroupProcedure(operations: [inside])
        wait(for: group, outside)
        assertProcedureFinished(group)
        XCTAssertEqual(outsideFinishedFirst.value, true)
    }

    func testGroupWaitsForADelayChild() {
        let delay = DelayProcedure(by: 0.05)
        let group = GroupProcedure(operations: [delay])
        let delayFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in delayFinishedFirst.mutate { $0 = delay.isFinished } }
        wait(for: group, timeout: 10)
        assertProcedureFinished(group)
        XCTAssertEqual(delayFinishedFirst.value, true)
    }

    func testNestedGroupsFinishInsideOut() {
        let leaf = TestProcedure(name: "leaf", delay: 0.02)
        let inner = GroupProcedure(operations: [leaf])
        let outer = GroupProcedure(operations: [inner, TestProcedure(name: "sibling")])
        let innerFinishedFirst = LockedBox<Bool?>(nil)
        outer.addWillFinishBlockObserver { _, _ in innerFinishedFirst.mutate { $0 = inner.isFinished && leaf.isFinished } }
        wait(for: outer)
        assertProcedureFinished(outer)
        assertProcedureFinished(inner)
        XCTAssertEqual(innerFinishedFirst.value, true)
    }

    func testNestedGroupErrorsBubbleUp() {
        let inner = GroupProcedure(operations: [TestProcedure(name: "deep", error: TestError("deep"))])
        let outer = GroupProcedure(operations: [inner])
        wait(for: outer)
        assertProcedureFinishedWithErrors(inner, count: 1)
        assertProcedureFinishedWithErrors(outer, count: 1)
        XCTAssertEqual(testErrorIDs(outer.errors), ["deep"])
    }
}
