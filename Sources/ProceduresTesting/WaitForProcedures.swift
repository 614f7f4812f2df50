import Foundation
import Procedures
import XCTest

extension XCTestCase {
    /// Runs `procedures` (adding those not yet on a queue to `queue`, or to a new
    /// ``ProcedureQueue``) and waits, without blocking the procedures' threads, until every one
    /// has finished and the did-finish observers it had when this was called have run (this
    /// wait is itself a did-finish observer: one added later, say while the procedure
    /// executes, runs after it, so wait for such an observer with an expectation of its own).
    ///
    /// On timeout the test fails with one line per unfinished procedure saying where it is
    /// and why it is not running (see `Procedure.waitingReason`), so a forgotten `finish()`,
    /// or a `ManualClock` nobody advanced, is easy to spot.
    ///
    /// Whether a procedure is on a queue is read once, when this is called. A procedure that
    /// another thread is adding at that moment (say, one being produced) is added twice, and
    /// the second add is reported as misuse: wait for its producer first, then for it.
    ///
    /// ```swift
    /// let procedure = MyProcedure()
    /// wait(for: procedure)
    /// assertProcedureFinished(procedure)
    /// ```
    public func wait(
        for procedures: Procedure..., on queue: ProcedureQueue? = nil, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        wait(forAll: procedures, on: queue, timeout: timeout, file: file, line: line)
    }

    /// The array form of ``wait(for:on:timeout:file:line:)``.
    public func wait(
        forAll procedures: [Procedure], on queue: ProcedureQueue? = nil, timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let finished = XCTestExpectation(description: "\(procedures.count) procedure(s) finished")
        ProcedureWait.start(procedures, on: queue) { finished.fulfill() }
        let result = XCTWaiter().wait(for: [finished], timeout: timeout)
        guard result != .completed else { return }
        XCTFail(
            WaitTimeoutMessage.make(timeout: timeout, result: "\(result)", procedures: procedures),
            file: file, line: line)
    }
}
