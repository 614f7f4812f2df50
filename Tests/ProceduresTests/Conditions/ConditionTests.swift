import Foundation
import Procedures
import ProceduresTesting
import XCTest

final class ConditionTests: MisuseRecordingTestCase {
    func testSatisfiedConditionLetsTheProcedureExecute() {
        let procedure = TestProcedure()
        procedure.addCondition(TrueCondition())
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func testFailedConditionCancelsWithItsNameAndErrorWithoutExecuting() {
        let procedure = TestProcedure()
        let condition = BlockCondition { throw TestError("nope") }
        condition.name = "Online"
        procedure.addCondition(condition)
        wait(for: procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertTrue(procedure.isCancelled)
        let failure = conditionFailure(of: procedure)
        XCTAssertEqual(failure?.name, "Online")
        XCTAssertEqual(failure?.error as? TestError, TestError("nope"))
        XCTAssertEqual(procedure.errors.count, 1)
    }

    func testIgnoredConditionCancelsWithoutErrors() {
        let procedure = TestProcedure()
        procedure.addCondition(BlockCondition { _, completion in completion(.ignored) })
        wait(for: procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertTrue(procedure.errors.isEmpty)
    }

    func testConditionsAreEvaluatedAfterDependenciesFinishAndBeforeWillExecute() {
        let log = LockedBox<[String]>([])
        let dependency = BlockProcedure { log.mutate { $0.append("dependency") } }
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        procedure.addCondition(BlockCondition { _, completion in
            log.mutate { $0.append(dependency.isFinished ? "condition after dependency" : "condition too early") }
            completion(.satisfied)
        })
        procedure.addWillExecuteBlockObserver { _ in log.mutate { $0.append("will execute") } }
        let queue = ProcedureQueue()
        queue.addOperation(procedure)  // added first: it must still wait
        queue.addOperation(dependency)
        wait(for: procedure, dependency)
        XCTAssertEqual(log.value, ["dependency", "condition after dependency", "will execute"])
    }

    func testADependentsConditionMayRunWhileTheDependencysDidFinishObserversStillRun() {
        // "Its dependencies have finished" means `isFinished`: the dependent is released
        // then, not once the dependency's did-finish observers are done. Here the observer
        // waits (a bounded time) for the condition; under a stricter rule it would wait in
        // vain, and the condition would see the observer done.
        let conditionRan = DispatchSemaphore(value: 0)
        let observerDone = LockedBox(false)
        let seen = LockedBox<(dependencyFinished: Bool, observerDone: Bool)?>(nil)
        let conditionSeenDuringObserver = LockedBox(false)
        let dependency = BlockProcedure {}
        dependency.addDidFinishBlockObserver { _, _ in
            let ran = conditionRan.wait(timeout: .now() + 5) == .success
            conditionSeenDuringObserver.mutate { $0 = ran }
            observerDone.mutate { $0 = true }
        }
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(dependency)
        dependent.addCondition(BlockCondition { _, completion in
            seen.mutate { $0 = (dependency.isFinished, observerDone.value) }
            conditionRan.signal()
            completion(.satisfied)
        })
        wait(for: dependency, dependent)
        XCTAssertEqual(seen.value?.dependencyFinished, true, "the dependency had finished")
        XCTAssertEqual(seen.value?.observerDone, false, "its did-finish observer had not returned")
        XCTAssertTrue(conditionSeenDuringObserver.value)
        XCTAssertTrue(dependent.didExecute)
    }

    func testAChildCancelledByItsFailedConditionAddsConditionFailedToItsGroup() {
        let child = TestProcedure(name: "child")
        child.addCondition(FalseCondition())
        let sibling = TestProcedure(name: "sibling")
        let group = GroupProcedure(operations: [child, sibling])
        wait(for: group)
        // The group is not cancelled: it fails, with the child's condition error.
        assertProcedureFinishedWithErrors(group, count: 1)
        assertProcedureCancelled(child, withErrors: true)
        guard case .conditionFailed(let name, let error)? = group.errors.first as? ProcedureError else {
            return XCTFail("expected conditionFailed, got \(group.errors)")
        }
        XCTAssertEqual(name, "FalseCondition")
        XCTAssertEqual(error as? ConditionError, .alwaysFalse)
        XCTAssertTrue(sibling.didExecute, "a child's failed condition does not stop its siblings")
    }

    func testAChildCancelledByAnIgnoredConditionLeavesItsGroupWithoutErrors() {
        let child = TestProcedure(name: "child")
        child.addCondition(IgnoredCondition(FalseCondition()))
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        assertProcedureFinished(group)
        assertProcedureCancelled(child, withErrors: false)
        XCTAssertFalse(child.didExecute)
    }

    func testConditionsRunInOrderOnceEachAndStopAtTheFirstFailure() {
        let log = LockedBox<[String]>([])
        let procedure = TestProcedure()
        procedure.addCondition(LoggingCondition("first", log: log))
        procedure.addCondition(LoggingCondition("second", log: log, result: .failed(TestError())))
        procedure.addCondition(LoggingCondition("third", log: log))
        wait(for: procedure)
        XCTAssertEqual(log.value, ["first", "second"])
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "second")
        XCTAssertFalse(procedure.didExecute)
    }

    func testWaitingForAnAsynchronousConditionTakesNoQueueSlot() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let condition = ManualCondition()
        let gated = TestProcedure(name: "gated")
        gated.addCondition(condition)
        queue.addOperation(gated)
        wait(for: [condition.evaluating], timeout: 10)
        // The only slot is free: another procedure runs while the condition is pending.
        let other = TestProcedure(name: "other")
        wait(for: other, on: queue)
        XCTAssertTrue(other.didExecute)
        XCTAssertFalse(gated.isFinished)
        XCTAssertEqual(queue.waitingProcedureCount, 1)
        condition.complete(.satisfied)
        wait(for: gated)
        XCTAssertTrue(gated.didExecute)
    }

    func testCancelDuringEvaluationStopsItAndTheProcedureFinishesCancelled() {
        let log = LockedBox<[String]>([])
        let condition = ManualCondition()
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        procedure.addCondition(LoggingCondition("after", log: log))
        ProcedureQueue().addOperation(procedure)
        wait(for: [condition.evaluating], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        XCTAssertTrue(procedure.isCancelled)
        // The answer that comes afterwards changes nothing.
        condition.complete(.satisfied)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(log.value, [])
        XCTAssertEqual(condition.evaluationCount, 1)
    }

    func testProcedureCancelledBeforeEnqueueDoesNotEvaluateConditions() {
        let log = LockedBox<[String]>([])
        let procedure = TestProcedure()
        procedure.addCondition(LoggingCondition("never", log: log))
        procedure.cancel()
        wait(for: procedure)
        XCTAssertEqual(log.value, [])
        XCTAssertTrue(procedure.isCancelled)
    }

    func testConditionWaitsForItsOwnDependencies() {
        let log = LockedBox<[String]>([])
        let conditionDependency = BlockProcedure { log.mutate { $0.append("condition dependency") } }
        let condition = LoggingCondition("condition", log: log)
        condition.addDependency(conditionDependency)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        queue.addOperation(conditionDependency)
        wait(for: procedure, conditionDependency)
        XCTAssertEqual(log.value, ["condition dependency", "condition"])
        XCTAssertTrue(procedure.didExecute)
    }

    func testProducedDependencyRunsOnTheSameQueueBeforeTheConditionIsEvaluated() {
        let log = LockedBox<[String]>([])
        let queue = ProcedureQueue()
        let produced = BlockProcedure {
            log.mutate { $0.append(ProcedureQueue.current === queue ? "produced on queue" : "produced elsewhere") }
        }
        let condition = LoggingCondition("condition", log: log)
        condition.produceDependency(produced)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        wait(for: procedure, on: queue)
        XCTAssertEqual(log.value, ["produced on queue", "condition"])
        XCTAssertTrue(produced.isFinished)
    }

    func testProducedDependencyIsCancelledWhenTheProcedureIsCancelledFirst() {
        let blocker = HeldProcedure(name: "blocker")
        let produced = TestProcedure(name: "produced")
        produced.addDependency(blocker)
        let condition = TrueCondition()
        condition.produceDependency(produced)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperation(blocker)
        queue.addOperation(procedure)
        wait(for: [blocker.executing], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        blocker.release()
        wait(for: produced)
        XCTAssertTrue(produced.isCancelled)
        XCTAssertFalse(produced.didExecute)
        XCTAssertFalse(procedure.didExecute)
    }

    func testProducedDependencyOfAChildRunsInTheSameGroup() {
        let produced = TestProcedure(name: "produced")
        let condition = TrueCondition()
        condition.produceDependency(produced)
        let child = TestProcedure(name: "child")
        child.addCondition(condition)
        let group = GroupProcedure(operations: [child])
        // A child of the group: the group finishes only after it.
        let producedFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in producedFinishedFirst.mutate { $0 = produced.isFinished } }
        wait(for: group)
        XCTAssertTrue(produced.didExecute)
        XCTAssertTrue(child.didExecute)
        XCTAssertEqual(producedFinishedFirst.value, true)
    }

    func testFailedConditionOnAGroupCancelsItAndItsChildrenNeverRun() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        group.addCondition(FalseCondition())
        wait(for: group)
        XCTAssertTrue(group.isCancelled)
        XCTAssertFalse(child.didExecute)
        XCTAssertEqual(conditionFailure(of: group)?.error as? ConditionError, .alwaysFalse)
    }

    func testChildConditionMayChangeItsGroupsSuspensionWhileTheGroupStarts() {
        // Resuming the group's queue evaluates the children's conditions; none of the group's
        // locks may be held then, or a condition touching the group would deadlock.
        let group = GroupProcedure()
        let child = TestProcedure(name: "child")
        child.addCondition(BlockCondition { [weak group] in
            group?.isSuspended = false
            return true
        })
        group.addChild(child)
        wait(for: group)
        XCTAssertTrue(child.didExecute)
    }

    func testChildConditionIsEvaluatedOnlyOnceTheGroupHasStarted() {
        let groupStarted = LockedBox(false)
        let seenByCondition = LockedBox<Bool?>(nil)
        let child = TestProcedure(name: "child")
        child.addCondition(BlockCondition {
            seenByCondition.mutate { $0 = groupStarted.value }
            return true
        })
        let failingChild = TestProcedure(name: "failing child")
        failingChild.addCondition(FalseCondition())
        let group = GroupProcedure(operations: [child, failingChild])
        group.addWillExecuteBlockObserver { _ in groupStarted.mutate { $0 = true } }
        wait(for: group)
        XCTAssertEqual(seenByCondition.value, true)
        XCTAssertTrue(child.didExecute)
        XCTAssertTrue(failingChild.isCancelled)
        XCTAssertFalse(failingChild.didExecute)
        XCTAssertTrue(group.isFinished)
    }

    func testOneConditionSharedByProceduresOnDifferentQueues() {
        let count = LockedBox(0)
        let condition = BlockCondition {
            count.mutate { $0 += 1 }
            return true
        }
        let first = TestProcedure()
        let second = TestProcedure()
        first.addCondition(condition)
        second.addCondition(condition)
        ProcedureQueue().addOperation(first)
        ProcedureQueue().addOperation(second)
        wait(for: first, second)
        XCTAssertTrue(first.didExecute && second.didExecute)
        XCTAssertEqual(count.value, 2)
    }

    func testProcedureStartedByHandEvaluatesItsConditions() {
        let satisfied = TestProcedure()
        satisfied.addCondition(TrueCondition())
        let failing = TestProcedure()
        failing.addCondition(FalseCondition())
        satisfied.start()
        failing.start()
        wait(for: satisfied, failing)
        XCTAssertTrue(satisfied.didExecute)
        XCTAssertFalse(failing.didExecute)
        XCTAssertTrue(failing.isCancelled)
    }

    func testConditionsWaitWhileTheQueueIsSuspended() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let count = LockedBox(0)
        let procedure = TestProcedure()
        procedure.addCondition(BlockCondition {
            count.mutate { $0 += 1 }
            return true
        })
        queue.addOperation(procedure)
        XCTAssertEqual(count.value, 0)
        XCTAssertTrue(procedure.stateSummary.contains("resumed"), procedure.stateSummary)
        queue.isSuspended = false
        wait(for: procedure)
        XCTAssertEqual(count.value, 1)
    }

    // MARK: - Misuse

    func testConditionAddedAfterEnqueueIsReportedAndIgnored() {
        let condition = ManualCondition()
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        ProcedureQueue().addOperation(procedure)
        procedure.addCondition(FalseCondition())
        XCTAssertEqual(misuse.kinds(about: procedure), [.conditionAddedAfterEnqueue])
        XCTAssertEqual(procedure.conditions.count, 1)
        condition.complete(.satisfied)
        wait(for: procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func testConditionCompletingTwiceKeepsTheFirstAnswerAndIsReported() {
        let procedure = TestProcedure()
        procedure.addCondition(BlockCondition { _, completion in
            completion(.satisfied)
            completion(.failed(TestError()))
        })
        wait(for: procedure)
        XCTAssertTrue(procedure.didExecute)
        XCTAssertFalse(procedure.isCancelled)
        XCTAssertEqual(misuse.kinds(about: procedure), [.conditionCompletedTwice])
    }

    func testConditionCompletingTwiceLaterKeepsTheFirstAnswer() {
        let condition = ManualCondition()
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        ProcedureQueue().addOperation(procedure)
        wait(for: [condition.evaluating], timeout: 10)
        condition.complete(.failed(TestError()))
        condition.complete(.satisfied)
        wait(for: procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertNotNil(conditionFailure(of: procedure))
        XCTAssertEqual(misuse.kinds(about: procedure), [.conditionCompletedTwice])
    }

    func testAnEarlierConditionCompletingAgainIsNotTakenForTheAnswerOfTheOneBeingEvaluated() {
        let first = ManualCondition()
        let second = ManualCondition()
        let procedure = TestProcedure()
        procedure.addConditions([first, second])
        ProcedureQueue().addOperation(procedure)
        wait(for: [first.evaluating], timeout: 10)
        first.complete(.satisfied)
        wait(for: [second.evaluating], timeout: 10)
        first.complete(.failed(TestError()))
        XCTAssertEqual(misuse.kinds(about: procedure), [.conditionCompletedTwice])
        XCTAssertFalse(procedure.isCancelled, "the second condition has not answered")
        second.complete(.satisfied)
        wait(for: procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func testConditionThatNeverCompletesIsNamedInTheStateSummary() {
        let condition = ManualCondition()
        condition.name = "WaitsForever"
        let procedure = TestProcedure(name: "stuck")
        procedure.addCondition(condition)
        ProcedureQueue().addOperation(procedure)
        wait(for: [condition.evaluating], timeout: 10)
        XCTAssertTrue(procedure.stateSummary.contains("waiting for condition WaitsForever"), procedure.stateSummary)
        condition.complete(.satisfied)
        wait(for: procedure)
        XCTAssertFalse(procedure.stateSummary.contains("WaitsForever"), procedure.stateSummary)
    }
}
