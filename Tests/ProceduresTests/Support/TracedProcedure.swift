import Foundation
import ProceduresTesting
import XCTest

/// A procedure that logs its overrides and `execute()` into a `CallbackTrace` (with the
/// cancelled flag where it matters) and whose `execute()` and did-cancel reaction are
/// supplied by the test.
final class TracedProcedure: Procedure, @unchecked Sendable {
    // @unchecked: every stored property is immutable.
    let trace: CallbackTrace
    private let onExecute: @Sendable (TracedProcedure) -> Void
    private let onDidCancel: (@Sendable (TracedProcedure) -> Void)?

    /// - Parameters:
    ///   - observed: also log every observer event (added first, before any test observer).
    ///   - onExecute: the body of `execute()`; the default finishes at once.
    ///   - onDidCancel: run from the `procedureDidCancel(withErrors:)` override.
    init(
        _ name: String, trace: CallbackTrace, observed: Bool = true,
        onExecute: @escaping @Sendable (TracedProcedure) -> Void = { $0.finish() },
        onDidCancel: (@Sendable (TracedProcedure) -> Void)? = nil
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
