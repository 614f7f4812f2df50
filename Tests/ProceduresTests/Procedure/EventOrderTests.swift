import Foundation
import ProceduresTesting
import XCTest

/// The event order written down in `Procedure`'s doc comment, one test per situation.
final class EventOrderTests: ProcedureTestCase {
    // MARK: - Normal run

    func testNormalRunRecordedWithEventRecorder() {
        let recorder = ProcedureEventRecorder()
        let procedure = TestProcedure(name: "normal", recorder: recorder)
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(recorder.events(of: procedure), [.willExecute, .execute, .didExecute, .willFinish, .didFinish])
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertTrue(recorder.overlaps.isEmpty)
    }

    func testNormalRunOrderIncludingOverrides() {
        let trace = CallbackTrace()
        let procedure = TracedProcedure("normal", trace: trace)
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + finishTail)
    }

    func testStateFlagsDuringANormalRun() {
        let seen = LockedBox<[String]>([])
        let procedure = TracedProcedure("flags", trace: CallbackTrace(), observed: false) { procedure in
            seen.mutate { $0.append("execute executing=\(procedure.isExecuting) finished=\(procedure.isFinished)") }
            procedure.finish()
        }
        procedure.addWillFinishBlockObserver { procedure, _ in
            seen.mutate { $0.append("willFinish executing=\(procedure.isExecuting) finished=\(procedure.isFinished)") }
        }
        procedure.addDidFinishBlockObserver { procedure, _ in
            seen.mutate { $0.append("didFinish executing=\(procedure.isExecuting) finished=\(procedure.isFinished)") }
        }
        XCTAssertFalse(procedure.isExecuting)
        XCTAssertFalse(procedure.isFinished)
        wait(for: procedure)
        XCTAssertEqual(seen.value, [
            "execute executing=true finished=false",
            "willFinish executing=true finished=false",
            "didFinish executing=false finished=true",
        ])
        XCTAssertFalse(procedure.isExecuting)
    }

    // MARK: - Cancel before enqueue

    func testCancelBeforeEnqueueRunsCancelHooksAtOnceAndNeverExecutes() {
        let trace = CallbackTrace()
        let procedure = TracedProcedure("early", trace: trace)
        procedure.cancel()
        // Nothing else is running callbacks of the procedure, so the hooks ran on this thread.
        XCTAssertEqual(trace.entries, cancelHooks)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertFalse(procedure.isFinished, "a procedure finishes only once its queue starts it")

        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, cancelHooks + finishTail)
    }

    func testCancelBeforeEnqueueFinishesCarryingTheCancelErrors() {
        let error = TestError("cancel")
        let procedure = TestProcedure(name: "early")
        procedure.cancel(withError: error)
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]), "\(procedure.errors)")
        XCTAssertFalse(procedure.didExecute)
    }

    // MARK: - Cancel after enqueue, before start

    func testCancelWhileWaitingForAControlledDependency() {
        let trace = CallbackTrace()
        let gate = makeGate()
        let procedure = TracedProcedure("waiting", trace: trace)
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)

        let error = TestError("cancel")
        procedure.cancel(withError: error)
        wait(for: procedure)

        XCTAssertFalse(gate.isFinished, "the cancelled procedure must not wait for its dependency")
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
        XCTAssertEqual(trace.entries, cancelHooks + finishTail)

        gate.finish()
        wait(for: gate)
    }

    func testCancelWhileWaitingForADelayProcedure() {
        let trace = CallbackTrace()
        let delay = DelayProcedure(by: 60)
        let procedure = TracedProcedure("waiting", trace: trace)
        procedure.addDependency(delay)
        let queue = ProcedureQueue()
        queue.addOperations([delay, procedure], waitUntilFinished: false)

        procedure.cancel()
        wait(for: procedure)
        XCTAssertFalse(delay.isFinished)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, cancelHooks + finishTail)

        delay.cancel()
        wait(for: delay)
    }

    func testCancelWhileHeldBySuspendedQueue() {
        let trace = CallbackTrace()
        let procedure = TracedProcedure("suspended", trace: trace)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperation(procedure)

        procedure.cancel()
        XCTAssertEqual(trace.entries, cancelHooks)
        XCTAssertFalse(procedure.isFinished, "a suspended queue has not started it")

        queue.isSuspended = false
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, cancelHooks + finishTail)
    }

    // MARK: - Cancel during execute

    func testCancelDuringExecuteWithDidCancelObserverThatFinishes() {
        let trace = CallbackTrace()
        let procedure = TracedProcedure("running", trace: trace, observed: false) { _ in }
        trace.observe(procedure, reactingTo: .didCancel) { $0.finish() }
        runUntilExecuting(procedure)

        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + cancelHooks + finishTail)
    }

    func testCancelDuringExecuteWithDidCancelOverrideThatFinishes() {
        let trace = CallbackTrace()
        let procedure = TracedProcedure(
            "running", trace: trace, onExecute: { _ in }, onDidCancel: { $0.finish() })
        runUntilExecuting(procedure)

        let error = TestError("cancel")
        procedure.cancel(withError: error)
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + cancelHooks + finishTail)
    }

    func testCancelDuringExecuteOnlyDeliversTheRequest() {
        let procedure = TracedProcedure("running", trace: CallbackTrace(), onExecute: { _ in })
        let executed = expectExecuted(procedure)
        let didCancel = expectation(description: "did cancel")
        procedure.addDidCancelBlockObserver { _, _ in didCancel.fulfill() }
        ProcedureQueue().addOperation(procedure)
        wait(for: [executed], timeout: 10)

        procedure.cancel()
        wait(for: [didCancel], timeout: 10)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertTrue(procedure.isExecuting, "cancelling does not finish an executing procedure")
        XCTAssertFalse(procedure.isFinished)

        procedure.finish()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
    }

    func testCancelAndFinishErrorsAreBothCarriedCancelFirst() {
        let cancelError = TestError("cancel")
        let finishError = TestError("finish")
        let procedure = TracedProcedure(
            "running", trace: CallbackTrace(), onExecute: { _ in },
            onDidCancel: { $0.finish(withError: finishError) })
        runUntilExecuting(procedure)
        procedure.cancel(withError: cancelError)
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertTrue(testErrors(procedure.errors, equal: [cancelError, finishError]), "\(procedure.errors)")
    }

    // MARK: - Cancel after finish

    func testCancelAfterFinishIsIgnored() {
        let trace = CallbackTrace()
        let procedure = TracedProcedure("done", trace: trace)
        wait(for: procedure)
        let before = trace.entries

        procedure.cancel(withError: TestError("late"))
        XCTAssertFalse(procedure.isCancelled)
        XCTAssertTrue(procedure.errors.isEmpty, "a late cancel must not add errors")
        XCTAssertEqual(trace.entries, before, "no cancel hook runs for a finished procedure")
        assertProcedureFinished(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [], "cancelling a finished procedure is harmless, not reported")
    }
}
