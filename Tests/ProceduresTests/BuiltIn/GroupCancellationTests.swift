import Foundation
import ProceduresTesting
import XCTest

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
    /// A child that ignores cancellation: it finishes only when the test calls `finish()`, so
    /// the group cannot finish (and reject new children) before the test is ready.
    private func stubbornChild(executing: XCTestExpectation) -> BlockProcedure {
        let child = BlockProcedure(asyncBlock: { _ in })
        child.name = "stubborn"
        child.addDidExecuteBlockObserver { _ in executing.fulfill() }
        return child
    }

    // MARK: - Cancelling a running group

    func testCancelWhileChildrenRunCancelsEveryChild() {
        let (children, executing) = runningChildren(4)
        let group = GroupProcedure(operations: children)
        let unfinished = unfinishedChildrenWhenFinishing(group)
        _ = startGroup(group, waitingFor: executing)

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
        _ = startGroup(group, waitingFor: executing)
        wait(for: [stubbornExecuting], timeout: 10)

        group.cancel()
        // It would never finish by itself: only the group's cancellation lets it finish.
        let late = WaitForCancelProcedure(name: "late")
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
        let produced = WaitForCancelProcedure(name: "produced")
        let producerExecuting = expectation(description: "producer executing")
        let producer = WaitForCancelProcedure(name: "producer")
        producer.addDidExecuteBlockObserver { _ in producerExecuting.fulfill() }
        // Produced from its will-cancel observer, so after the group's cancel reached it.
        producer.addWillCancelBlockObserver { producer, _ in try? producer.produce(produced) }
        group.addChild(producer)
        _ = startGroup(group, waitingFor: executing)
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
        _ = startGroup(group, waitingFor: executing)

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
        _ = startGroup(group, waitingFor: executing)
        wait(for: [stubbornExecuting], timeout: 10)

        let error = TestError("group")
        group.cancel(withError: error)
        let late = WaitForCancelProcedure(name: "late")
        group.addChild(late)
        stubborn.finish()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group, withErrors: true)
        XCTAssertEqual(group.errors.count, 1, "\(group.errors)")
        XCTAssertEqual(group.errors.first as? TestError, error)
        XCTAssertFalse(containsParentCancelled(group.errors))

        for child in children + [late] {
            assertProcedureCancelled(child, withErrors: true)
            let inner = parentCancelledErrors(child.errors)
            XCTAssertNotNil(inner, "\(child.name ?? ""): \(child.errors)")
            XCTAssertEqual(inner?.compactMap { $0 as? TestError }, [error])
        }
    }

    func testCancelWithSeveralErrorsForwardsThemAll() {
        let (children, executing) = runningChildren(1)
        let group = GroupProcedure(operations: children)
        _ = startGroup(group, waitingFor: executing)

        group.cancel(withErrors: [TestError("x"), TestError("y")])
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.errors.compactMap { ($0 as? TestError)?.id }, ["x", "y"])
        XCTAssertEqual(parentCancelledErrors(children[0].errors).map(testErrorIDs), ["x", "y"])
    }

    func testPlainCancelReportsNoErrors() {
        let (children, executing) = runningChildren(3)
        let group = GroupProcedure(operations: children)
        _ = startGroup(group, waitingFor: executing)

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
        _ = startGroup(group, waitingFor: executing)

        group.cancel(withError: TestError("group"))
        wait(for: group, timeout: 10)
        XCTAssertEqual(testErrorIDs(group.errors), ["group"])
        XCTAssertEqual(group.errors.count, 1)
        XCTAssertEqual(testErrorIDs(child.errors), ["echo"])
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
        _ = startGroup(group, waitingFor: executing)

        children[0].cancel(withError: TestError("child"))
        wait(for: group, timeout: 10)
        XCTAssertFalse(group.isCancelled)
        assertProcedureFinished(sibling)
        // The child's own cancel error is a child error like any other.
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(testErrorIDs(group.errors), ["child"])
    }

    func testChildCancellingItsGroupCancelsEverything() {
        let (children, executing) = runningChildren(2)
        let group = GroupProcedure(operations: children)
        _ = startGroup(group, waitingFor: executing)

        let canceller = BlockProcedure { [unowned group] in group.cancel() }
        group.addChild(canceller)
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        for child in children { assertProcedureCancelled(child) }
        XCTAssertTrue(canceller.isFinished)
    }

    func testCancelCancelsChildrenWaitingForDependencies() {
        // The dependency ignores the cancel, so only the group's cancel can release them.
        // (For a dependency that finishes when cancelled, see GroupCancelPropagationTests.)
        let executing = expectation(description: "blocker executing")
        let blocker = stubbornChild(executing: executing)
        let waiting = (0..<3).map { TestProcedure(name: "waiting \($0)") }
        for procedure in waiting { procedure.addDependency(blocker) }
        let group = GroupProcedure(operations: [blocker] + waiting)
        _ = startGroup(group, waitingFor: executing)

        group.cancel()
        for procedure in waiting { waitUntilFinishedWithoutEnqueueing(procedure) }
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
        _ = startGroup(group, waitingFor: executing)

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
            XCTAssertEqual(parentCancelledErrors(procedure.errors)?.compactMap { $0 as? TestError }, [error])
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

    // MARK: - Callbacks

    func testCancelCallbacksOfGroupAndChildrenDoNotOverlap() {
        let recorder = ProcedureEventRecorder()
        let children = (0..<10).map { TestProcedure(name: "child \($0)", delay: 60, recorder: recorder) }
        let executing = expectation(description: "executing")
        executing.expectedFulfillmentCount = children.count
        for child in children { child.addDidExecuteBlockObserver { _ in executing.fulfill() } }
        let group = GroupProcedure(operations: children)
        group.addObserver(recorder)
        _ = startGroup(group, waitingFor: executing)

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
        _ = startGroup(group, waitingFor: executing)

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
        _ = startGroup(group, waitingFor: executing)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.transforms.value, 0)
        XCTAssertEqual(group.errors.count, 0)
    }

    func testTransformHookIsCalledForFailuresBeforeTheCancel() {
        let failing = TestProcedure(name: "failing", error: TestError("early"))
        let (running, executing) = runningChildren(1)
        let group = TransformCountingGroup(operations: [failing] + running)
        _ = startGroup(group, waitingFor: executing)
        waitUntilFinishedWithoutEnqueueing(failing)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(group.transforms.value, 1)
    }
}
