import Foundation
import Procedures
import XCTest

/// Asserts that `procedure` finished without being cancelled and without errors.
public func assertProcedureFinished(
    _ procedure: Procedure, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertTrue(procedure.isFinished, "\(procedure.stateSummary) has not finished", file: file, line: line)
    XCTAssertFalse(procedure.isCancelled, "\(procedure.stateSummary) was cancelled", file: file, line: line)
    XCTAssertTrue(procedure.errors.isEmpty, "\(procedure.stateSummary) has errors", file: file, line: line)
}

/// Asserts that `procedure` finished, not cancelled, with errors; with `count`, exactly that many.
public func assertProcedureFinishedWithErrors(
    _ procedure: Procedure, count: Int? = nil, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertTrue(procedure.isFinished, "\(procedure.stateSummary) has not finished", file: file, line: line)
    XCTAssertFalse(procedure.isCancelled, "\(procedure.stateSummary) was cancelled", file: file, line: line)
    XCTAssertTrue(procedure.failed, "\(procedure.stateSummary) has no errors", file: file, line: line)
    if let count {
        XCTAssertEqual(procedure.errors.count, count, "\(procedure.stateSummary)", file: file, line: line)
    }
}

/// Asserts that `procedure` was cancelled and has finished; `withErrors` says whether it must
/// carry errors (true) or none (false).
public func assertProcedureCancelled(
    _ procedure: Procedure, withErrors: Bool = false, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertTrue(procedure.isCancelled, "\(procedure.stateSummary) was not cancelled", file: file, line: line)
    XCTAssertTrue(procedure.isFinished, "\(procedure.stateSummary) has not finished", file: file, line: line)
    if withErrors {
        XCTAssertTrue(procedure.failed, "\(procedure.stateSummary) has no errors", file: file, line: line)
    } else {
        XCTAssertFalse(procedure.failed, "\(procedure.stateSummary) has errors", file: file, line: line)
    }
}
