import Foundation
import ProceduresTesting
import XCTest

/// A group that counts calls to its `execute()` override.
private final class CountingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: the counter has its own lock.
    let executions = LockedBox(0)

    override func execute() {
        executions.mutate { $0 += 1 }
        super.execute()
    }
}

/// A group that counts calls to its error-transform hook.
private final class TransformCountingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: the counter has its own lock.
    let transforms = LockedBox(0)

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        transforms.mutate { $0 += 1 }
        return errors
    }
}

final class GroupCancellationTests: MisuseRecordingTestCase {
    // MARK: - Helpers

    /// Children that finish only when cancelled, and an expectation fulfilled once all of
    /// them are executing.
    private func runningChildren(_ count: Int, prefix: String = "child") -> ([BuiltInWaitForCancel], XCTestExpectation) {
        let executing = expectation(description: "\(count) \(prefix)(ren) executing")
        executing.expectedFulfillmentCount = count
        let children = (0..<count).map { i -> BuiltInWaitForCancel in
            let child = BuiltInWaitForCancel(name: "\(prefix) \(i)")
            child.addDidExecuteBlockObserver { _ in executing.fulfill() }
            return child
        }
        return (children, executing)
    }

    /// Records, at the group's will-finish, the names of its children that have not finished.
    private func unfinishedChildrenWhenFinishing(_ group: GroupProcedure) -> LockedBox<[String]?> {
        let box = LockedBox<[String]?>(nil)
        group.addWillFinishBlockObserver { group, _ in
            box.mutate { $0 = group.children.filter { !$0.isFinished }.map { $0.name ?? "?" } }
        }
        return box
    }

    /// A child that ignores cancellation: it finishes only when the test calls `finish()`, so
    /// the group cannot finish (and reject new children) before the test is ready.
    private func stubbornChild(executing: XCTestExpectation) -> BlockProcedure {
        let child = BlockProcedure(asyncBlock: { _ in })
        child.name = "stubborn"
        child.addDidExecuteBlockObserver { _ in executing.fulfill() }
        return child
    }

    private func start(_ group: GroupProcedure, waitingFor executing: XCTestExpectation) -> ProcedureQueue {
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [executing], timeout: 10)
        XCTAssertFalse(group.isFinished)
        return queue
    }

    // MARK: - Cancelling a running group

    func testCancelWhileChildrenRunCancelsEveryChild() {
        let (children, executing) = runningChildren(4)
        let group = GroupProcedure(operations: children)
        let unfinished = unfinishedChildrenWhenFinishing(group)
        _ = start(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        for child in children { assertProcedureCancelled(child) }
        XCTAssertEqual(unfinished.value, [])
    }

    func testChildAddedAfterCancelIsCancelled() {
        let (children, executing) = runningChildren(2)
        let stubbornExecuting = expectation(description: "stubborn executing")
        let stubborn = stubbornChild(executing: stubbornExecuting)
        let group = GroupProcedure(operations: children + [stubborn])
        let unfinished = unfinishedChildrenWhenFinishing(group)
        _ = start(group, waitingFor: executing)
        wait(for: [stubbornExecuting], timeout: 10)

        group.cancel()
        // It would never finish by itself: only the group's cancellation lets it finish.
        let late = BuiltInWaitForCancel(name: "late")
        group.addChild(late)
        XCTAssertFalse(group.isFinished)
        stubborn.finish()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        assertProcedureCancelled(late)
        XCTAssertTrue(group.children.contains { $0 === late })
        XCTAssertEqual(unfinished.value, [])
        XCTAssertEqual(misuse.kinds(about: group), [])
    }

    func testChildProducedAfterCancelIsCancelled() {
        let (children, executing) = runningChildren(1)
        let group = GroupProcedure(operations: children)
        let produced = BuiltInWaitForCancel(name: "produced")
        let producerExecuting = expectation(description: "producer executing")
        let producer = BuiltInWaitForCancel(name: "producer")
        producer.addDidExecuteBlockObserver { _ in producerExecuting.fulfill() }
        // Produced from its will-cancel observer, so after the group's cancel reached it.
        producer.addWillCancelBlockObserver { producer, _ in try? producer.produce(produced) }
        group.addChild(producer)
        _ = start(group, waitingFor: executing)
        wait(for: [producerExecuting], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        assertProcedureCancelled(produced)
        XCTAssertTrue(group.children.contains { $0 === produced })
    }

    func testGroupFinishesOnlyAfterSlowCancelledChildrenFinish() {
        // Children that take a while to wind down after being cancelled.
        let children = (0..<3).map { i -> BlockProcedure in
            let child = BlockProcedure(asyncBlock: { _ in })
            child.name = "slow \(i)"
            child.addDidCancelBlockObserver { child, _ in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05 * Double(i + 1)) { child.finish() }
            }
            return child
        }
        let executing = expectation(description: "children executing")
        executing.expectedFulfillmentCount = children.count
        for child in children { child.addDidExecuteBlockObserver { _ in executing.fulfill() } }
        let group = GroupProcedure(operations: children)
        let unfinished = unfinishedChildrenWhenFinishing(group)
        _ = start(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(unfinished.value, [])
        for child in children { assertProcedureCancelled(child) }
    }

    func testCancelWithErrorReportsOwnErrorNotEchoes() {
        let (children, executing) = runningChildren(3)
        let stubbornExecuting = expectation(description: "stubborn executing")
        let stubborn = stubbornChild(executing: stubbornExecuting)
        let group = GroupProcedure(operations: children + [stubborn])
        _ = start(group, waitingFor: executing)
        wait(for: [stubbornExecuting], timeout: 10)

        let error = TestError("group")
        group.cancel(withError: error)
        let late = BuiltInWaitForCancel(name: "late")
        group.addChild(late)
        stubborn.finish()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group, withErrors: true)
        XCTAssertEqual(group.errors.count, 1, "\(group.errors)")
        XCTAssertEqual(group.errors.first as? TestError, error)
        XCTAssertFalse(builtInContainsParentCancelled(group.errors))

        for child in children + [late] {
            assertProcedureCancelled(child, withErrors: true)
            let inner = builtInParentCancelledErrors(child.errors)
            XCTAssertNotNil(inner, "\(child.name ?? ""): \(child.errors)")
            XCTAssertEqual(inner?.compactMap { $0 as? TestError }, [error])
        }
    }

    func testCancelWithSeveralErrorsForwardsThemAll() {
        let (children, executing) = runningChildren(1)
        let group = GroupProcedure(operations: children)
        _ = start(group, waitingFor: executing)

        group.cancel(withErrors: [TestError("x"), TestError("y")])
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.errors.compactMap { ($0 as? TestError)?.id }, ["x", "y"])
        XCTAssertEqual(builtInParentCancelledErrors(children[0].errors).map(builtInTestErrorIDs), ["x", "y"])
    }

    func testPlainCancelReportsNoErrors() {
        let (children, executing) = runningChildren(3)
        let group = GroupProcedure(operations: children)
        _ = start(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group, withErrors: false)
        for child in children { assertProcedureCancelled(child, withErrors: false) }
    }

    func testChildErrorsAfterCancelAreNotAggregated() {
        // A child that answers the cancel with an error of its own: that is an echo.
        let child = BlockProcedure(asyncBlock: { _ in })
        child.addDidCancelBlockObserver { child, _ in child.finish(withError: TestError("echo")) }
        let executing = expectation(description: "executing")
        child.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let group = GroupProcedure(operations: [child])
        _ = start(group, waitingFor: executing)

        group.cancel(withError: TestError("group"))
        wait(for: group, timeout: 10)
        XCTAssertEqual(builtInTestErrorIDs(group.errors), ["group"])
        XCTAssertEqual(group.errors.count, 1)
        XCTAssertEqual(builtInTestErrorIDs(child.errors), ["echo"])
    }

    func testCancelAfterFinishIsIgnored() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        group.cancel(withError: TestError("too late"))
        assertProcedureFinished(group)
        XCTAssertFalse(child.isCancelled)
        assertProcedureFinished(child)
    }

    func testCancellingOneChildDoesNotCancelTheGroup() {
        let (children, executing) = runningChildren(1)
        let sibling = TestProcedure(name: "sibling", delay: 0.05)
        let group = GroupProcedure(operations: children + [sibling])
        _ = start(group, waitingFor: executing)

        children[0].cancel(withError: TestError("child"))
        wait(for: group, timeout: 10)
        XCTAssertFalse(group.isCancelled)
        assertProcedureFinished(sibling)
        // The child's own cancel error is a child error like any other.
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(builtInTestErrorIDs(group.errors), ["child"])
    }

    func testChildCancellingItsGroupCancelsEverything() {
        let (children, executing) = runningChildren(2)
        let group = GroupProcedure(operations: children)
        _ = start(group, waitingFor: executing)

        let canceller = BlockProcedure { [unowned group] in group.cancel() }
        group.addChild(canceller)
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        for child in children { assertProcedureCancelled(child) }
        XCTAssertTrue(canceller.isFinished)
    }

    func testCancelCancelsChildrenWaitingForDependencies() {
        // The dependency ignores the cancel, so only the group's cancel can release them.
        // (For a dependency that finishes when cancelled, see BuiltInRegressionTests.)
        let executing = expectation(description: "blocker executing")
        let blocker = stubbornChild(executing: executing)
        let waiting = (0..<3).map { TestProcedure(name: "waiting \($0)") }
        for procedure in waiting { procedure.addDependency(blocker) }
        let group = GroupProcedure(operations: [blocker] + waiting)
        _ = start(group, waitingFor: executing)

        group.cancel()
        for procedure in waiting { builtInWaitUntilFinished(procedure) }
        XCTAssertFalse(group.isFinished)
        for procedure in waiting {
            assertProcedureCancelled(procedure)
            XCTAssertEqual(procedure.executeCount, 0)
        }
        blocker.finish()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
    }

    func testCancelCancelsPlainOperationChildrenThatHaveNotRun() {
        let executing = expectation(description: "blocker executing")
        let blocker = stubbornChild(executing: executing)
        let ran = LockedBox(false)
        let plain = BlockOperation { ran.mutate { $0 = true } }
        plain.addDependency(blocker)
        let group = GroupProcedure(operations: [blocker, plain])
        let plainFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in plainFinishedFirst.mutate { $0 = plain.isFinished } }
        _ = start(group, waitingFor: executing)

        group.cancel()
        blocker.finish()
        wait(for: group, timeout: 10)
        XCTAssertTrue(plain.isCancelled)
        XCTAssertTrue(plain.isFinished)
        XCTAssertFalse(ran.value)
        XCTAssertEqual(plainFinishedFirst.value, true)
    }

    // MARK: - Cancelled before it starts

    func testCancelledBeforeStartNeverExecutesButFinishesAfterItsChildren() {
        let testChild = TestProcedure(name: "test child")
        let blockRan = LockedBox(false)
        let blockChild = BlockProcedure { blockRan.mutate { $0 = true } }
        blockChild.name = "block child"
        let plainRan = LockedBox(false)
        let plainChild = BlockOperation { plainRan.mutate { $0 = true } }
        plainChild.name = "plain child"
        let group = CountingGroup(operations: [testChild, blockChild, plainChild])
        let willExecute = LockedBox(0)
        group.addWillExecuteBlockObserver { _ in willExecute.mutate { $0 += 1 } }
        let unfinished = unfinishedChildrenWhenFinishing(group)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        XCTAssertEqual(group.executions.value, 0)
        XCTAssertEqual(willExecute.value, 0)
        XCTAssertEqual(unfinished.value, [])
        assertProcedureCancelled(testChild)
        XCTAssertEqual(testChild.executeCount, 0)
        assertProcedureCancelled(blockChild)
        XCTAssertFalse(blockRan.value)
        XCTAssertTrue(plainChild.isCancelled)
        XCTAssertTrue(plainChild.isFinished)
        XCTAssertFalse(plainRan.value)
    }

    func testCancelledWithErrorBeforeStart() {
        let child = TestProcedure(name: "child")
        let group = CountingGroup(operations: [child])
        let error = TestError("early")
        group.cancel(withError: error)
        let late = TestProcedure(name: "added after cancel, before start")
        group.addChild(late)
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.executions.value, 0)
        assertProcedureCancelled(group, withErrors: true)
        XCTAssertEqual(group.errors.compactMap { $0 as? TestError }, [error])
        XCTAssertEqual(group.errors.count, 1)
        for procedure in [child, late] {
            assertProcedureCancelled(procedure, withErrors: true)
            XCTAssertEqual(procedure.executeCount, 0)
            XCTAssertEqual(builtInParentCancelledErrors(procedure.errors)?.compactMap { $0 as? TestError }, [error])
        }
    }

    func testEmptyGroupCancelledBeforeStartFinishes() {
        let group = CountingGroup()
        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        XCTAssertEqual(group.executions.value, 0)
    }

    func testGroupCancelledWhileWaitingForADependency() {
        let (blockers, executing) = runningChildren(1, prefix: "blocker")
        let child = TestProcedure(name: "child")
        let group = CountingGroup(operations: [child])
        group.addDependency(blockers[0])
        let queue = ProcedureQueue()
        queue.addOperations([blockers[0], group], waitUntilFinished: false)
        wait(for: [executing], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        assertProcedureCancelled(child)
        XCTAssertEqual(group.executions.value, 0)
        XCTAssertFalse(blockers[0].isFinished)
        blockers[0].cancel()
        wait(for: blockers[0], timeout: 10)
    }

    // MARK: - Nested groups

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
        _ = start(outer, waitingFor: executing)
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
        XCTAssertEqual(builtInParentCancelledErrors(inner.errors)?.compactMap { $0 as? TestError }, [error])
        for procedure in grandchildren + siblings { assertProcedureCancelled(procedure, withErrors: true) }
    }

    func testCancellingInnerGroupDoesNotCancelOuterGroup() {
        let (grandchildren, executing) = runningChildren(2, prefix: "grandchild")
        let inner = GroupProcedure(operations: grandchildren)
        let sibling = TestProcedure(name: "sibling", delay: 0.05)
        let outer = GroupProcedure(operations: [inner, sibling])
        _ = start(outer, waitingFor: executing)

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
        _ = start(top, waitingFor: executing)

        top.cancel()
        wait(for: top, timeout: 10)
        for group in groups { assertProcedureCancelled(group) }
        assertProcedureCancelled(leaves[0])
    }

    // MARK: - Callbacks

    func testCancelCallbacksOfGroupAndChildrenDoNotOverlap() {
        let recorder = ProcedureEventRecorder()
        let children = (0..<10).map { TestProcedure(name: "child \($0)", delay: 60, recorder: recorder) }
        let executing = expectation(description: "executing")
        executing.expectedFulfillmentCount = children.count
        for child in children { child.addDidExecuteBlockObserver { _ in executing.fulfill() } }
        let group = GroupProcedure(operations: children)
        group.addObserver(recorder)
        _ = start(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(recorder.overlaps, [])
        let adds: [ProcedureEventRecorder.Event] = Array(repeating: .willAdd, count: 10) + Array(repeating: .didAdd, count: 10)
        XCTAssertEqual(
            recorder.events(of: group),
            [.willExecute] + adds + [.didExecute, .willCancel, .didCancel, .willFinish, .didFinish])
        for child in children {
            XCTAssertEqual(recorder.events(of: child).filter { $0 == .didFinish }.count, 1)
            XCTAssertEqual(child.didCancelCount, 1)
        }
    }

    // MARK: - Built-in children

    func testCancellingAGroupOfLongDelaysFinishesPromptly() {
        let delays = (0..<5).map { _ in DelayProcedure(by: 60) }
        let executing = expectation(description: "delays executing")
        executing.expectedFulfillmentCount = delays.count
        for delay in delays { delay.addDidExecuteBlockObserver { _ in executing.fulfill() } }
        let group = GroupProcedure(operations: delays)
        _ = start(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        for delay in delays { assertProcedureCancelled(delay) }
    }

    func testTransformHookIsNotCalledOnceCancelled() {
        let child = BlockProcedure(asyncBlock: { _ in })
        child.addDidCancelBlockObserver { child, _ in child.finish(withError: TestError("after cancel")) }
        let executing = expectation(description: "executing")
        child.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let group = TransformCountingGroup(operations: [child])
        _ = start(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.transforms.value, 0)
        XCTAssertEqual(group.errors.count, 0)
    }

    func testTransformHookIsCalledForFailuresBeforeTheCancel() {
        let failing = TestProcedure(name: "failing", error: TestError("early"))
        let (running, executing) = runningChildren(1)
        let group = TransformCountingGroup(operations: [failing] + running)
        _ = start(group, waitingFor: executing)
        builtInWaitUntilFinished(failing)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.transforms.value, 1)
    }
}
