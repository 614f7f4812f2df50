import Foundation
import ProceduresTesting
import XCTest

/// Procedures on a plain `OperationQueue`: they run, in dependency order; and what happens when
/// one procedure is put on a plain queue and a `ProcedureQueue` (one queue per procedure: the
/// misuse should be reported, and today Foundation stops the process, so those tests are
/// skipped unless PROCEDURES_KNOWN_ISSUES is set).
final class PlainOperationQueueTests: MisuseRecordingTestCase {
    /// Two procedures, one depending on the other, added to a plain `OperationQueue` both run, in
    /// order (with any width and add order): the plain queue must learn that the dependent became
    /// ready, which Foundation only hears through `isReady`.
    func testProcedureDependingOnAProcedureRunsOnAPlainOperationQueue() {
        let queue = OperationQueue()
        let first = TestProcedure(name: "first")
        let second = TestProcedure(name: "second")
        second.addDependency(first)
        let done = expectation(description: "both finished")
        done.expectedFulfillmentCount = 2
        first.addDidFinishBlockObserver { _, _ in done.fulfill() }
        second.addDidFinishBlockObserver { _, _ in done.fulfill() }
        // Not wait(for:): it would add them to a ProcedureQueue too (and corelibs would crash).
        queue.addOperations([first, second], waitUntilFinished: false)
        let result = XCTWaiter().wait(for: [done], timeout: 10)
        XCTAssertEqual(result, .completed, "first finished: \(first.isFinished), second finished: \(second.isFinished), reports: \(misuse.kinds(about: second))")
        if result != .completed { second.cancel() }  // lets the plain queue drain
    }

    /// A procedure first added to a plain (suspended) `OperationQueue` and then to a
    /// `ProcedureQueue` should be reported as `.addedToSecondQueue` and ignored, never crash.
    /// Known limitation, skipped unless PROCEDURES_KNOWN_ISSUES is set: a plain queue never claims
    /// the procedure, so the ProcedureQueue hands Foundation an operation it already holds and
    /// Foundation stops the process ("operations finished, executing or already in a queue cannot be
    /// enqueued"). The migration guide says: one queue per procedure, and only `ProcedureQueue`s.
    /// Runs in a child process so that the crash does not take the test run down.
    func testProcedureHeldByAPlainQueueAndAddedToAProcedureQueueIsReported() throws {
        try XCTSkipUnless(
            ProcessInfo.processInfo.environment["PROCEDURES_KNOWN_ISSUES"] != nil,
            "known limitation: Foundation stops the process when a ProcedureQueue adds an operation a plain queue holds; set PROCEDURES_KNOWN_ISSUES=1 to run")
        guard isChild else {
            assertChildSurvives("testProcedureHeldByAPlainQueueAndAddedToAProcedureQueueIsReported")
            return
        }
        let plain = OperationQueue()
        plain.isSuspended = true
        let procedure = TestProcedure(name: "two queues")
        plain.addOperation(procedure)
        ProcedureQueue().addOperation(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.addedToSecondQueue])
        plain.isSuspended = false
        wait(for: procedure)
    }

    /// A procedure waiting in a `ProcedureQueue` for a dependency, then also added to a plain
    /// `OperationQueue`, should have the plain queue's start reported and run once.
    /// Known limitation, skipped unless PROCEDURES_KNOWN_ISSUES is set: when the dependency finishes,
    /// the ProcedureQueue hands the procedure to Foundation without knowing that another
    /// `OperationQueue` already took it, and Foundation stops the process. Runs in a child process.
    func testWaitingProcedureAlsoAddedToAPlainQueueRunsOnce() throws {
        try XCTSkipUnless(
            ProcessInfo.processInfo.environment["PROCEDURES_KNOWN_ISSUES"] != nil,
            "known limitation: a ProcedureQueue cannot tell that a plain queue took a waiting procedure; set PROCEDURES_KNOWN_ISSUES=1 to run")
        guard isChild else {
            assertChildSurvives("testWaitingProcedureAlsoAddedToAPlainQueueRunsOnce")
            return
        }
        let gate = BlockProcedure(asyncBlock: { _ in })
        let procedure = TestProcedure(name: "waiting, then plain queue")
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        let plain = OperationQueue()
        plain.addOperation(procedure)
        gate.finish()
        wait(for: procedure, timeout: 10)
    }
}
