import Foundation
import ProceduresTesting
import XCTest

@testable import Procedures

/// Generic code asks a procedure's role (and an owner's) instead of testing classes: each
/// built-in it treats apart answers with the role that code expects, and the code acts on it.
final class ProcedureRoleTests: ProcedureTestCase {
    /// Records what the queue tells its delegate about finishing, and fulfils `finished`
    /// once per finished operation or procedure.
    private final class FinishLog: ProcedureQueueDelegate, @unchecked Sendable {
        // @unchecked: the log lives in a LockedBox; `finished` is immutable and thread-safe.
        let entries = LockedBox<[String]>([])
        let finished: XCTestExpectation

        init(finished: XCTestExpectation) { self.finished = finished }

        func procedureQueue(_ queue: ProcedureQueue, willFinish procedure: Procedure, withErrors errors: [any Error]) {
            entries.mutate { $0.append("willFinish \(procedure.name ?? "?")") }
        }

        func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
            entries.mutate { $0.append("didFinish procedure \(procedure.name ?? "?")") }
            finished.fulfill()
        }

        func procedureQueue(_ queue: ProcedureQueue, didFinish operation: Operation) {
            entries.mutate { $0.append("didFinish operation \(operation.name ?? "?")") }
            finished.fulfill()
        }
    }

    /// Hears when its procedure begins waiting for conditions, through the capability alone.
    private final class ConditionWaitRecorder: ConditionWaitObserver, @unchecked Sendable {
        // @unchecked: `began` is immutable and thread-safe.
        let began: XCTestExpectation

        init(began: XCTestExpectation) { self.began = began }

        func procedureBeginsWaitingForConditions(_ procedure: Procedure) { began.fulfill() }
    }

    func testAGroupWaitsForItsUnfinishedChildrenWhileItRuns() {
        let child = makeGate("child")
        let group = GroupProcedure(operations: [child])
        let finished = expectation(description: "group finished")
        group.addDidFinishBlockObserver { _, _ in finished.fulfill() }
        runUntilExecuting(child, inside: group)

        XCTAssertEqual(group.role, .group)
        XCTAssertTrue(group.asGroup === group)
        XCTAssertNil(group.asOperationRunner)
        XCTAssertEqual(group.waitedForWhileRunning.map(ObjectIdentifier.init), [ObjectIdentifier(child)])
        XCTAssertTrue(group.waitsWhileHoldingASlot, "a running group with an unfinished child holds its slot and waits")

        child.finish()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(group.waitedForWhileRunning.isEmpty)
    }

    func testAnOrdinaryRunningProcedureWaitsForNothing() {
        let running = makeGate("running")
        runUntilExecuting(running)
        XCTAssertEqual(running.role, .ordinary)
        XCTAssertNil(running.asGroup)
        XCTAssertNil(running.asOperationRunner)
        XCTAssertTrue(running.waitedForWhileRunning.isEmpty)
        XCTAssertFalse(running.waitsWhileHoldingASlot)
        running.finish()
        XCTAssertEqual(DelayProcedure(by: 0).role, .ordinary, "a delay is handled like any procedure")
    }

    func testASubclassOfAGroupIsAGroup() {
        let subclass = CountingGroup(operations: [])
        XCTAssertEqual(subclass.role, .group)
        XCTAssertTrue(subclass.asGroup === subclass)
    }

    func testAPlainOperationIsTrackedThroughARunnerAndReportedAsItself() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let finished = expectation(description: "operation finished")
        let log = FinishLog(finished: finished)
        queue.delegate = log
        let operation = BlockOperation {}
        operation.name = "plain"
        queue.addOperation(operation)

        let members = queue.unfinishedMembers
        XCTAssertEqual(members.count, 1)
        XCTAssertEqual(members.first?.role, .operationRunner)
        XCTAssertTrue(members.first?.asOperationRunner?.operation === operation)
        XCTAssertTrue(members.first?.reportedOperation === operation)
        XCTAssertEqual(queue.unfinishedOperations.map(ObjectIdentifier.init), [ObjectIdentifier(operation)])
        XCTAssertTrue(queue.waitingProcedures.isEmpty, "a runner is left out of the waiting report")

        queue.isSuspended = false
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.entries.value, ["didFinish operation plain"], "the delegate hears of the operation, never of its runner")
    }

    func testABarrierIsLeftOutOfDelegateAndWaitingReports() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let finished = expectation(description: "procedure after the barrier finished")
        let log = FinishLog(finished: finished)
        queue.delegate = log
        queue.addBarrierBlock {}
        let after = TestProcedure(name: "after")
        queue.addOperation(after)

        let members = queue.unfinishedMembers
        XCTAssertEqual(members.count, 2)
        XCTAssertEqual(members.first?.role, .barrier)
        XCTAssertEqual(queue.waitingProcedures.map { $0.procedure.name }, ["after"], "the barrier is left out")

        queue.isSuspended = false
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.entries.value, ["willFinish after", "didFinish procedure after"])
    }

    func testEachOwnerSaysWhetherItIsAQueueOrAGroup() {
        let queue = ProcedureQueue()
        guard case .queue(let asQueue) = queue.ownerRole else { return XCTFail("a queue's owner role is \(queue.ownerRole)") }
        XCTAssertTrue(asQueue === queue)
        let group = GroupProcedure(operations: [])
        guard case .group(let asGroup) = group.ownerRole else { return XCTFail("a group's owner role is \(group.ownerRole)") }
        XCTAssertTrue(asGroup === group)
        XCTAssertEqual(Procedure.ownerName(group), "group \(group.displayName)")
    }

    func testATimeoutObserverHearsWhenItsProcedureBeginsWaitingForConditions() {
        let observer: any ProcedureObserver = TimeoutObserver(by: 1)
        XCTAssertNotNil(observer as? any ConditionWaitObserver)
    }

    func testAnObserverWithTheConditionWaitCapabilityHearsTheWaitBegin() {
        let began = expectation(description: "condition wait began")
        let condition = ManualCondition()
        let procedure = TestProcedure(name: "conditioned")
        procedure.addCondition(condition)
        procedure.addObserver(ConditionWaitRecorder(began: began))
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        wait(for: [began, condition.evaluating], timeout: 10, enforceOrder: true)
        condition.complete(.satisfied)
        wait(for: procedure)
        XCTAssertTrue(procedure.didExecute)
    }
}
