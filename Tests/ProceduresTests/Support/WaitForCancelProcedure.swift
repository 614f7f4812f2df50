import Foundation
import ProceduresSupport
import ProceduresTesting
import XCTest

/// A procedure that finishes only when cancelled (or when told to with `finish()`), and says
/// when it started executing.
final class WaitForCancelProcedure: Procedure, @unchecked Sendable {
    // @unchecked: no mutable state of its own.
    init(name: String) {
        super.init()
        self.name = name
    }

    override func execute() {}

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if isExecuting { finish() }
    }
}

extension XCTestCase {
    /// Waits until `procedures` have finished (and their did-finish observers ran) without
    /// adding any of them to a queue.
    ///
    /// Use it for a group's children: `wait(for:)` adds a procedure that is not yet enqueued
    /// to a fresh queue, which steals a child its group has not enqueued yet (the group then
    /// never hears that child finish).
    func waitUntilFinishedWithoutEnqueueing(
        _ procedures: Procedure..., timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line
    ) {
        let finished = XCTestExpectation(description: "\(procedures.count) procedure(s) finished")
        finished.expectedFulfillmentCount = max(procedures.count, 1)
        if procedures.isEmpty { finished.fulfill() }
        for procedure in procedures { procedure.addDidFinishBlockObserver { _, _ in finished.fulfill() } }
        if XCTWaiter().wait(for: [finished], timeout: timeout) != .completed {
            let lines = procedures.filter { !$0.isFinished }.map { "  - \($0.stateSummary)" }.joined(separator: "\n")
            XCTFail("Timed out after \(DurationText.seconds(timeout)) waiting for:\n\(lines)", file: file, line: line)
        }
    }
}
