import Foundation
import Procedures
import ProceduresProcess
import ProceduresTesting
import XCTest

/// ProcessProcedure with the time-based procedures: a timeout stops the program, a retry runs
/// it again.
final class ProcessRetryAndTimeoutTests: XCTestCase {
    func testATimeoutStopsTheProgramAndLeavesNoProcess() throws {
        let clock = ManualClock()
        let sleeper = ProcessProcedure(shellCommand: "echo up; exec sleep 1000", standardOutput: .lines)
            .timeout(after: 30, clock: clock)
        let up = expectation(description: "program started")
        sleeper.standardOutputLines.onSuccess(context: .immediate) { _ in up.fulfill() }
        ProcedureQueue().addOperation(sleeper)
        wait(for: [up], timeout: 10)
        let pid = try XCTUnwrap(sleeper.processIdentifier)
        advance(clock, by: 30)
        wait(for: sleeper)
        XCTAssertTrue(sleeper.isCancelled)
        guard case .timedOut? = sleeper.errors.first as? ProcedureError else { return XCTFail("\(sleeper.errors)") }
        XCTAssertFalse(processExists(pid))
    }

    func testARetriedProgramRunsAgainUntilItSucceeds() throws {
        let counter = FileManager.default.temporaryDirectory.appendingPathComponent("attempts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: counter) }
        // Fails twice, then succeeds: each run counts itself in the file.
        let script = "n=$(cat \"$0\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0\"; echo attempt $n; [ $n -ge 3 ]"
        let retry = RetryProcedure(maxAttempts: 5, wait: .immediate) {
            ProcessProcedure(executable: "/bin/sh", arguments: ["-c", script, counter.path])
        }
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 3)
        XCTAssertEqual(retry.current?.output?.standardOutputString, "attempt 3\n")
    }
}
