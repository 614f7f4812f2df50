import Foundation
import ProceduresProcess
import ProceduresTesting
import XCTest

/// A process reports progress only through what its output lines say, mapped by the caller.
final class ProcessProgressTests: XCTestCase {
    /// `done/total` on a line of its own.
    private static func units(_ line: String) -> ProgressUnits? {
        let parts = line.split(separator: "/")
        guard parts.count == 2, let done = Int64(parts[0]), let total = Int64(parts[1]) else { return nil }
        return ProgressUnits(completed: done, of: total)
    }

    /// Waits until `procedure`'s progress, as its observers see it, satisfies `condition`.
    private func waitForProgress(of procedure: Procedure, _ condition: @escaping @Sendable (ProgressUpdate) -> Bool) {
        let reached = XCTestExpectation(description: "progress")
        reached.assertForOverFulfill = false
        let observation = procedure.observeProgress(minimumInterval: 0) { if condition($0) { reached.fulfill() } }
        XCTAssertEqual(XCTWaiter().wait(for: [reached], timeout: 10), .completed, "progress: \(procedure.currentProgress)")
        observation.cancel()
    }

    func testOutputLinesMappedToUnitsFillTheProgress() {
        let process = ProcessProcedure(
            executable: "/bin/sh", arguments: ["-c", "echo starting; echo 1/4; echo 3/4; sleep 30"],
            standardOutput: .lines, terminationGracePeriod: 0)
        process.reportProgress(fromOutputLines: Self.units)
        ProcedureQueue().addOperation(process)
        waitForProgress(of: process) { $0.completedUnitCount == 3 }
        XCTAssertEqual(process.currentProgress.fractionCompleted, 0.75)
        XCTAssertEqual(process.progress.totalUnitCount, 4)
        process.cancel()
        wait(for: process)
        XCTAssertEqual(process.currentProgress.fractionCompleted, 0.75, "cancelled: it stays where it was")
    }

    func testProcessThatFinishesReportsOneHundredPercent() {
        let process = ProcessProcedure(
            executable: "/bin/sh", arguments: ["-c", "echo 1/3 >&2; echo done"], standardError: .lines)
        process.reportProgress(fromOutputLines: Self.units)
        wait(for: process)
        XCTAssertEqual(process.currentProgress.fractionCompleted, 1)
    }

    func testProcessWithoutAMappingHasNoProgressUntilItFinishes() {
        let process = ProcessProcedure(executable: "/bin/sh", arguments: ["-c", "echo 1/2"], standardOutput: .lines)
        XCTAssertTrue(process.currentProgress.isIndeterminate)
        wait(for: process)
        XCTAssertEqual(process.currentProgress.fractionCompleted, 1)
    }
}
