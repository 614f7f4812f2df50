import Foundation
import ProceduresSupport
import ProceduresTesting
import XCTest

extension XCTestCase {
    /// Adds `procedure` (or `group`, which holds it) to a new queue and waits until its
    /// `execute()` has returned (its did-execute observers run).
    func runUntilExecuting(
        _ procedure: Procedure, inside group: GroupProcedure? = nil, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let executing = XCTestExpectation(description: "\(procedure.name ?? "procedure") executing")
        procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
        ProcedureQueue().addOperation(group ?? procedure)
        if XCTWaiter().wait(for: [executing], timeout: timeout) != .completed {
            XCTFail("Timed out after \(DurationText.seconds(timeout)) waiting for \(procedure.stateSummary) to execute", file: file, line: line)
        }
    }
}
