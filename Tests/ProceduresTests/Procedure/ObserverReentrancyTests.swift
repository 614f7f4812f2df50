import Foundation
import ProceduresTesting
import XCTest

/// Cancelling or finishing from inside every kind of observer: the request is handled right
/// after the observer returns, and the documented order still holds.
final class ObserverReentrancyTests: ProcedureTestCase {
    /// A traced procedure whose observer reacts to `event` with `reaction`; `execute()` does
    /// not finish unless `finishesInExecute`.
    private func make(
        reactingTo event: ProcedureEventRecorder.Event, finishesInExecute: Bool = false,
        onDidCancel: (@Sendable (TracedProcedure) -> Void)? = nil,
        _ reaction: @escaping @Sendable (Procedure) -> Void
    ) -> (TracedProcedure, CallbackTrace) {
        let trace = CallbackTrace()
        let procedure = TracedProcedure(
            "reacting to \(event)", trace: trace, observed: false,
            onExecute: { if finishesInExecute { $0.finish() } }, onDidCancel: onDidCancel)
        trace.observe(procedure, reactingTo: event, with: reaction)
        return (procedure, trace)
    }

    // MARK: - will-execute

    func testCancelFromWillExecuteSkipsExecute() {
        let (procedure, trace) = make(reactingTo: .willExecute) { $0.cancel() }
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, ["willExecute"] + cancelHooks + finishTail)
    }

    func testFinishFromWillExecuteSkipsExecute() {
        let error = TestError("will-execute")
        let (procedure, trace) = make(reactingTo: .willExecute) { $0.finish(withError: error) }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
        XCTAssertEqual(trace.entries, ["willExecute"] + finishTail)
    }

    // MARK: - did-execute

    func testCancelFromDidExecute() {
        let (procedure, trace) = make(reactingTo: .didExecute, onDidCancel: { $0.finish() }) { $0.cancel() }
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + cancelHooks + finishTail)
    }

    func testFinishFromDidExecute() {
        let (procedure, trace) = make(reactingTo: .didExecute) { $0.finish() }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + finishTail)
    }

    // MARK: - will-cancel

    func testCancelFromWillCancelIsIgnored() {
        let (procedure, trace) = make(reactingTo: .willCancel, onDidCancel: { $0.finish() }) {
            $0.cancel(withError: TestError("second"))
        }
        runUntilExecuting(procedure)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: false)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + cancelHooks + finishTail)
    }

    func testFinishFromWillCancelCompletesTheCancelThenFinishes() {
        // The cancel came first, so it wins: its did-cancel hooks still run, then the finish
        // requested from will-cancel takes effect, carrying both sets of errors.
        let cancelError = TestError("cancel")
        let finishError = TestError("finish")
        let (procedure, trace) = make(reactingTo: .willCancel) { $0.finish(withError: finishError) }
        runUntilExecuting(procedure)
        procedure.cancel(withError: cancelError)
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertTrue(testErrors(procedure.errors, equal: [cancelError, finishError]), "\(procedure.errors)")
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + cancelHooks + finishTail)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    // MARK: - did-cancel

    func testCancelFromDidCancelIsIgnored() {
        let (procedure, trace) = make(reactingTo: .didCancel, onDidCancel: { $0.finish() }) {
            $0.cancel(withError: TestError("again"))
        }
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: false)
        XCTAssertEqual(trace.entries, cancelHooks + finishTail)
    }

    func testFinishFromDidCancelBeforeStartIsAppliedWhenStarted() {
        let error = TestError("from did-cancel")
        let (procedure, trace) = make(reactingTo: .didCancel) { $0.finish(withError: error) }
        procedure.cancel()
        XCTAssertFalse(procedure.isFinished)
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
        XCTAssertEqual(trace.entries, cancelHooks + finishTail)
        XCTAssertEqual(misuse.kinds(about: procedure), [], "the framework's own finish must not count as a second finish")
    }

    // MARK: - will-finish

    func testFinishFromWillFinishIsIgnoredAndReported() {
        let first = TestError("first")
        let (procedure, trace) = make(reactingTo: .willFinish) { $0.finish(withError: TestError("second")) }
        runUntilExecuting(procedure)
        procedure.finish(withError: first)
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(testErrors(procedure.errors, equal: [first]), "\(procedure.errors)")
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + finishTail)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }

    func testCancelFromWillFinishIsIgnored() {
        let (procedure, trace) = make(reactingTo: .willFinish, finishesInExecute: true) { $0.cancel() }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + finishTail)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    // MARK: - did-finish

    func testFinishFromDidFinishIsIgnoredAndReported() {
        let reported = expectation(description: "second finish handled")
        let (procedure, trace) = make(reactingTo: .didFinish, finishesInExecute: true) {
            $0.finish(withError: TestError("late"))
            reported.fulfill()
        }
        wait(for: procedure)
        wait(for: [reported], timeout: 10)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + finishTail)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }

    func testCancelFromDidFinishIsIgnored() {
        let (procedure, trace) = make(reactingTo: .didFinish, finishesInExecute: true) { $0.cancel() }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute"] + finishTail)
    }

    // MARK: - will-add / did-add (via produce)

    /// A procedure that produces `produced` from `execute()` and does not finish itself.
    private func makeProducer(
        _ produced: Operation, reactingTo event: ProcedureEventRecorder.Event,
        onDidCancel: (@Sendable (TracedProcedure) -> Void)? = nil,
        _ reaction: @escaping @Sendable (Procedure) -> Void
    ) -> (TracedProcedure, CallbackTrace) {
        let trace = CallbackTrace()
        let procedure = TracedProcedure(
            "producer", trace: trace, observed: false,
            onExecute: { procedure in
                do { try procedure.produce(produced) } catch { XCTFail("produce threw \(error)") }
            }, onDidCancel: onDidCancel)
        trace.observe(procedure, reactingTo: event, with: reaction)
        return (procedure, trace)
    }

    func testCancelFromWillAddStillAddsTheOperation() {
        let produced = TestProcedure(name: "produced")
        let (procedure, trace) = makeProducer(produced, reactingTo: .willAdd, onDidCancel: { $0.finish() }) {
            $0.cancel()
        }
        wait(for: procedure)
        wait(for: produced)
        assertProcedureCancelled(procedure)
        assertProcedureFinished(produced)
        XCTAssertTrue(produced.didExecute)
        XCTAssertEqual(
            trace.entries, ["willExecute", "execute", "didExecute", "willAdd", "didAdd"] + cancelHooks + finishTail)
    }

    func testFinishFromDidAdd() {
        let produced = TestProcedure(name: "produced")
        let (procedure, trace) = makeProducer(produced, reactingTo: .didAdd) { $0.finish() }
        wait(for: procedure)
        wait(for: produced)
        assertProcedureFinished(procedure)
        assertProcedureFinished(produced)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute", "willAdd", "didAdd"] + finishTail)
    }

    func testFinishFromWillAddStillAddsTheOperationFirst() {
        let produced = TestProcedure(name: "produced")
        let (procedure, trace) = makeProducer(produced, reactingTo: .willAdd) { $0.finish() }
        wait(for: procedure)
        wait(for: produced)
        assertProcedureFinished(procedure)
        XCTAssertTrue(produced.didExecute)
        XCTAssertEqual(trace.entries, ["willExecute", "execute", "didExecute", "willAdd", "didAdd"] + finishTail)
    }
}
