import Foundation
import ProceduresTesting
import XCTest

/// `start()` called by hand: runs a free procedure (waiting for its dependencies without
/// blocking); otherwise ignored and reported as `startedOutsideQueue`.
final class StartMisuseTests: ProcedureTestCase {
    func testStartByHandRunsAFreeProcedure() {
        let recorder = ProcedureEventRecorder()
        let procedure = TestProcedure(name: "free", recorder: recorder)
        procedure.start()
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertEqual(recorder.events(of: procedure), [.willExecute, .execute, .didExecute, .willFinish, .didFinish])
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    func testStartByHandWaitsForProcedureDependenciesWithoutBlocking() {
        let gate = makeGate()
        let queue = ProcedureQueue()
        queue.addOperation(gate)
        let procedure = TestProcedure(name: "free, dependent")
        procedure.addDependency(gate)

        let startReturned = expectation(description: "start() returned")
        Thread {
            procedure.start()
            startReturned.fulfill()
        }.start()
        wait(for: [startReturned], timeout: 10)
        XCTAssertFalse(procedure.didExecute, "must not run before its dependency finished")
        XCTAssertFalse(procedure.isFinished)

        gate.finish()
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertTrue(gate.isFinished)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    func testStartByHandTwiceIsReported() {
        let procedure = TracedProcedure("twice", trace: CallbackTrace(), onExecute: { _ in })
        procedure.start()
        procedure.start()
        XCTAssertEqual(misuse.kinds(about: procedure), [.startedOutsideQueue])
        procedure.finish()
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.trace.entries.filter { $0 == "execute" }.count, 1)
    }

    func testStartByHandOnAFinishedProcedureIsReportedAndDoesNothing() {
        let procedure = TestProcedure(name: "finished")
        wait(for: procedure)
        procedure.start()
        XCTAssertEqual(misuse.kinds(about: procedure), [.startedOutsideQueue])
        XCTAssertEqual(procedure.executeCount, 1)
        assertProcedureFinished(procedure)
    }

    func testStartByHandOnAQueueOwnedWaitingProcedureIsReportedAndIgnored() {
        let gate = makeGate()
        let procedure = TestProcedure(name: "owned")
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)

        procedure.start()
        XCTAssertEqual(misuse.kinds(about: procedure), [.startedOutsideQueue])
        XCTAssertFalse(procedure.didExecute)
        XCTAssertFalse(procedure.isExecuting)

        gate.finish()
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.executeCount, 1, "the queue still runs it, once")
    }

    func testStartByHandOnARunningProcedureIsReported() {
        let procedure = TracedProcedure("running", trace: CallbackTrace(), onExecute: { _ in })
        runUntilExecuting(procedure)
        procedure.start()
        XCTAssertEqual(misuse.kinds(about: procedure), [.startedOutsideQueue])
        procedure.finish()
        wait(for: procedure)
        XCTAssertEqual(procedure.trace.entries.filter { $0 == "execute" }.count, 1)
    }

    func testStartByHandOnACancelledFreeProcedureFinishesWithoutExecuting() {
        let procedure = TestProcedure(name: "cancelled, free")
        procedure.cancel()
        procedure.start()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }
}

extension StartMisuseTests {
    /// `start()` by hand on a procedure its (suspended) ProcedureQueue has not started yet is
    /// ignored and reported as `startedOutsideQueue`; the queue runs it once resumed (not the
    /// caller's thread, despite the suspended queue).
    func testStartByHandOnAProcedureInASuspendedQueueIsReportedAndIgnored() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure(name: "owned, suspended")
        queue.addOperation(procedure)

        procedure.start()
        XCTAssertEqual(misuse.kinds(about: procedure), [.startedOutsideQueue])
        XCTAssertFalse(procedure.didExecute, "ran although its queue is suspended")

        queue.isSuspended = false
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.executeCount, 1)
    }

    /// `start()` by hand on a free procedure waits for all its dependencies, plain `Operation`s
    /// included, not only procedures.
    func testStartByHandWaitsForAPlainOperationDependency() {
        let operation = BlockOperation {}
        let procedure = TestProcedure(name: "free, plain dependency")
        procedure.addDependency(operation)
        let startReturned = expectation(description: "start() returned")
        Thread {
            procedure.start()
            startReturned.fulfill()
        }.start()
        wait(for: [startReturned], timeout: 5)
        XCTAssertFalse(procedure.didExecute, "ran before its dependency")

        let queue = ProcedureQueue()
        queue.addOperation(operation)
        wait(for: procedure)
        XCTAssertTrue(operation.isFinished)
        XCTAssertEqual(procedure.executeCount, 1)
    }
}
