import Foundation
import ProceduresTesting
import XCTest

/// A test case with the core tests' helpers; its misuse reports are in `misuse`.
class ProcedureTestCase: MisuseRecordingTestCase {
    /// What a `TracedProcedure` logs once it begins finishing: its overrides and observers.
    let finishTail = [
        "procedureWillFinish(finished: false)", "willFinish",
        "procedureDidFinish(finished: true)", "didFinish",
    ]
    /// What a `TracedProcedure` logs when it is cancelled: its overrides and observers.
    let cancelHooks = [
        "procedureWillCancel(cancelled: true)", "willCancel",
        "procedureDidCancel(cancelled: true)", "didCancel",
    ]

    /// A procedure that stays executing until `finish()` is called on it: a dependency the
    /// test controls.
    func makeGate(_ name: String = "gate") -> BlockProcedure {
        let gate = BlockProcedure(asyncBlock: { _ in })
        gate.name = name
        return gate
    }

    /// An expectation fulfilled when `procedure` is inside `execute()` or later (its
    /// did-execute observers run).
    func expectExecuted(_ procedure: Procedure) -> XCTestExpectation {
        let executed = expectation(description: "\(procedure.name ?? "procedure") executed")
        procedure.addDidExecuteBlockObserver { _ in executed.fulfill() }
        return executed
    }
}

/// Logs each observer event into a `CallbackTrace`, optionally reacting to one of them.
struct TraceObserver: ProcedureObserver {
    let trace: CallbackTrace
    let event: ProcedureEventRecorder.Event?
    let body: (@Sendable (Procedure) -> Void)?

    private func log(_ kind: ProcedureEventRecorder.Event, _ procedure: Procedure) {
        trace.log(kind.rawValue, of: procedure, as: kind)
        // Reacting inside the callback (outside the recorder's bracket is fine: the
        // reaction's own events are queued behind this callback, never nested).
        if kind == event { body?(procedure) }
    }

    func willExecute(_ procedure: Procedure) { log(.willExecute, procedure) }
    func didExecute(_ procedure: Procedure) { log(.didExecute, procedure) }
    func willCancel(_ procedure: Procedure, errors: [any Error]) { log(.willCancel, procedure) }
    func didCancel(_ procedure: Procedure, errors: [any Error]) { log(.didCancel, procedure) }
    func procedure(_ procedure: Procedure, willAdd operation: Operation) { log(.willAdd, procedure) }
    func procedure(_ procedure: Procedure, didAdd operation: Operation) { log(.didAdd, procedure) }
    func willFinish(_ procedure: Procedure, errors: [any Error]) { log(.willFinish, procedure) }
    func didFinish(_ procedure: Procedure, errors: [any Error]) { log(.didFinish, procedure) }
}

/// True if `errors` is exactly the given test errors, in order.
func testErrors(_ errors: [any Error], equal expected: [TestError]) -> Bool {
    let actual = errors.compactMap { $0 as? TestError }
    return actual.count == errors.count && actual == expected
}
