import Foundation
import Procedures
import XCTest

/// Asserts that `procedure` finished without being cancelled and without errors.
public func assertProcedureFinished(
    _ procedure: Procedure, file: StaticString = #filePath, line: UInt = #line
) {
    fail(ProcedureOutcomeCheck.finished(procedure), file: file, line: line)
}

/// Asserts that `procedure` finished, not cancelled, with errors; with `count`, exactly that many.
public func assertProcedureFinishedWithErrors(
    _ procedure: Procedure, count: Int? = nil, file: StaticString = #filePath, line: UInt = #line
) {
    fail(ProcedureOutcomeCheck.finishedWithErrors(procedure, count: count), file: file, line: line)
}

/// Asserts that `procedure` was cancelled and has finished; `withErrors` says whether it must
/// carry errors (true) or none (false).
public func assertProcedureCancelled(
    _ procedure: Procedure, withErrors: Bool = false, file: StaticString = #filePath, line: UInt = #line
) {
    fail(ProcedureOutcomeCheck.cancelled(procedure, withErrors: withErrors), file: file, line: line)
}

private func fail(_ problems: [String], file: StaticString, line: UInt) {
    for problem in problems { XCTFail(problem, file: file, line: line) }
}
