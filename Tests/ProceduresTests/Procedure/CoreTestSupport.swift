import Foundation
import ProceduresTesting
import XCTest

// Helpers shared by the procedure-core and queue tests. Names carry a `Core` prefix so they
// cannot collide with helpers of other test files in this target.

/// A test case with the core tests' helpers; its misuse reports are in `misuse`.
class CoreTestCase: MisuseRecordingTestCase {
    /// What a `CoreTracedProcedure` logs once it begins finishing: its overrides and observers.
    let finishTail = [
        "procedureWillFinish(finished: false)", "willFinish",
        "procedureDidFinish(finished: true)", "didFinish",
    ]
    /// What a `CoreTracedProcedure` logs when it is cancelled: its overrides and observers.
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

/// An ordered log of callbacks (overrides, `execute()` and observers), each entry recorded
/// through a `ProcedureEventRecorder` so overlapping callbacks fail the test.
final class CoreTrace: @unchecked Sendable {
    // @unchecked: `entries` lives in a LockedBox; `recorder` is thread-safe.
    let recorder: ProcedureEventRecorder
    private let box = LockedBox<[String]>([])

    init(file: StaticString = #filePath, line: UInt = #line) {
        recorder = ProcedureEventRecorder(file: file, line: line)
    }

    var entries: [String] { box.value }

    func log(_ entry: String, of procedure: Procedure, as event: ProcedureEventRecorder.Event = .other) {
        recorder.record(event, of: procedure) { box.mutate { $0.append(entry) } }
    }

    /// Adds an observer that logs every observer event of `procedure`, running `body` (if
    /// given) inside the callback of `event`.
    func observe(
        _ procedure: Procedure, reactingTo event: ProcedureEventRecorder.Event? = nil,
        with body: (@Sendable (Procedure) -> Void)? = nil
    ) {
        procedure.addObserver(CoreTraceObserver(trace: self, event: event, body: body))
    }
}

/// Logs each observer event into a `CoreTrace`, optionally reacting to one of them.
struct CoreTraceObserver: ProcedureObserver {
    let trace: CoreTrace
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

/// A procedure that logs its overrides and `execute()` into a `CoreTrace` (with the
/// cancelled flag where it matters) and whose `execute()` and did-cancel reaction are
/// supplied by the test.
final class CoreTracedProcedure: Procedure, @unchecked Sendable {
    // @unchecked: every stored property is immutable.
    let trace: CoreTrace
    private let onExecute: @Sendable (CoreTracedProcedure) -> Void
    private let onDidCancel: (@Sendable (CoreTracedProcedure) -> Void)?

    /// - Parameters:
    ///   - observed: also log every observer event (added first, before any test observer).
    ///   - onExecute: the body of `execute()`; the default finishes at once.
    ///   - onDidCancel: run from the `procedureDidCancel(withErrors:)` override.
    init(
        _ name: String, trace: CoreTrace, observed: Bool = true,
        onExecute: @escaping @Sendable (CoreTracedProcedure) -> Void = { $0.finish() },
        onDidCancel: (@Sendable (CoreTracedProcedure) -> Void)? = nil
    ) {
        self.trace = trace
        self.onExecute = onExecute
        self.onDidCancel = onDidCancel
        super.init()
        self.name = name
        if observed { trace.observe(self) }
    }

    override func execute() {
        trace.log("execute", of: self, as: .execute)
        onExecute(self)
    }

    override func procedureWillCancel(withErrors errors: [any Error]) {
        trace.log("procedureWillCancel(cancelled: \(isCancelled))", of: self)
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        trace.log("procedureDidCancel(cancelled: \(isCancelled))", of: self)
        onDidCancel?(self)
    }

    override func procedureWillFinish(withErrors errors: [any Error]) {
        trace.log("procedureWillFinish(finished: \(isFinished))", of: self)
    }

    override func procedureDidFinish(withErrors errors: [any Error]) {
        trace.log("procedureDidFinish(finished: \(isFinished))", of: self)
    }
}

/// True if `errors` is exactly the given test errors, in order.
func coreErrors(_ errors: [any Error], equal expected: [TestError]) -> Bool {
    let actual = errors.compactMap { $0 as? TestError }
    return actual.count == errors.count && actual == expected
}

/// A queue delegate that logs its calls as "<event> <name>", with the errors' ids and the
/// procedure's `isFinished` for the finish events.
final class CoreRecordingDelegate: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked: the log lives in a LockedBox.
    private let log = LockedBox<[String]>([])
    /// Called after each did-finish, for tests that wait on the delegate.
    let onDidFinish: (@Sendable (Procedure) -> Void)?

    init(onDidFinish: (@Sendable (Procedure) -> Void)? = nil) { self.onDidFinish = onDidFinish }

    var events: [String] { log.value }

    func events(of name: String) -> [String] {
        events.filter { $0.hasSuffix(" \(name)") || $0.contains(" \(name) ") }
    }

    private func ids(_ errors: [any Error]) -> String {
        errors.map { ($0 as? TestError)?.id ?? "\($0)" }.joined(separator: ",")
    }

    func procedureQueue(_ queue: ProcedureQueue, willAdd operation: Operation) {
        log.mutate { $0.append("willAdd \(operation.name ?? "?")") }
    }

    func procedureQueue(_ queue: ProcedureQueue, didAdd operation: Operation) {
        log.mutate { $0.append("didAdd \(operation.name ?? "?")") }
    }

    func procedureQueue(_ queue: ProcedureQueue, willFinish procedure: Procedure, withErrors errors: [any Error]) {
        let finished = procedure.isFinished
        log.mutate { $0.append("willFinish \(procedure.name ?? "?") [\(ids(errors))] finished=\(finished)") }
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
        let finished = procedure.isFinished
        log.mutate { $0.append("didFinish \(procedure.name ?? "?") [\(ids(errors))] finished=\(finished)") }
        onDidFinish?(procedure)
    }
}
