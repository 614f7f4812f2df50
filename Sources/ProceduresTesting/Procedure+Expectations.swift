import Foundation
import Procedures
import Testing

// Outcomes to check with `#expect` and `#require` (or XCTAssertTrue): the same checks as the
// XCTest assertions `assertProcedureFinished(_:)` and the rest, as Booleans.
extension Procedure {
    /// True once the procedure has finished without being cancelled and without errors
    /// (`assertProcedureFinished(_:)` in XCTest).
    ///
    /// ```swift
    /// #expect(greeting.finishedWithoutErrors)
    /// ```
    ///
    /// A failed expectation shows the procedure as its ``testDescription``: its name, stage,
    /// cancellation and errors.
    public var finishedWithoutErrors: Bool { ProcedureOutcomeCheck.finished(self).isEmpty }

    /// True once the procedure has finished, not cancelled, with at least one error
    /// (`assertProcedureFinishedWithErrors(_:count:)` in XCTest; check `errors.count` for a
    /// number).
    public var finishedWithErrors: Bool { ProcedureOutcomeCheck.finishedWithErrors(self).isEmpty }

    /// True once the procedure was cancelled and has finished, with or without errors
    /// (`assertProcedureCancelled(_:withErrors:)` in XCTest; check `errors` for which).
    public var finishedCancelled: Bool { ProcedureOutcomeCheck.cancelled(self, withErrors: nil).isEmpty }
}

// In an expectation's failure message a procedure reads as its state, not as an address:
// `(slow → slow: finished, cancelled, errors: [timedOut…]).finishedWithoutErrors → false`.
extension Procedure: CustomTestStringConvertible {
    /// One line on where the procedure is in its life: its name, stage, cancellation and
    /// errors.
    public var testDescription: String { stateSummary }
}
