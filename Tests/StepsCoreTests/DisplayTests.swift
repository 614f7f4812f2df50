import Foundation
import ProceduresTestSupport
import XCTest
@testable import StepsCore

/// What the person running a pipeline reads, in process: the plain display's lines and the
/// summary table.
final class DisplayTests: XCTestCase {
    private func record(_ name: String, attempts: Int = 1) -> StepRecord {
        StepRecord(step: Step(name: name, command: .shell("x"), retry: Step.Retry(attempts: attempts, backoff: 0, maxBackoff: 0)))
    }

    func testThePlainDisplayWritesOneTimestampedLinePerEvent() {
        let written = LockedBox("")
        let display = PlainDisplay(names: ["build"]) { text in written.mutate { $0 += text } }
        let build = record("build", attempts: 2)
        display.runStarted("Running 1 step")
        build.attemptStarted(1)
        display.stepStarted(build, attempt: 1)
        display.stepWillRetry(build, failedAttempt: 1, reason: "exit status 1", wait: 0.5)
        build.attemptStarted(2)
        display.stepStarted(build, attempt: 2)
        build.finish(.succeeded)
        display.stepFinished(build, outcome: .succeeded, shown: nil)
        display.runFinished(summary: "the summary\n")
        let lines = written.value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let stamp = #"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}  "#
        let texts = lines.prefix(5).map { $0.replacingOccurrences(of: stamp, with: "", options: .regularExpression) }
        XCTAssertEqual(Array(texts), [
            "Running 1 step", "start build", "retry build: try 1 exit status 1; waiting 0.5 s before try 2",
            "start build (try 2 of 2)", texts[4],
        ])
        XCTAssertNotNil(texts[4].range(of: #"^✓ build  [0-9.]+s  \(2 tries\)$"#, options: .regularExpression), texts[4])
        XCTAssertEqual(Array(lines.suffix(3)), ["", "the summary", ""])
    }

    func testTheSummaryHasARowPerStepAndAVerdict() {
        let ok = record("build")
        ok.attemptStarted(1)
        ok.finish(.succeeded)
        let failed = record("test")
        failed.attemptStarted(1)
        failed.finish(.failed(reason: "exit status 1", ignored: false))
        let skipped = record("deploy")
        skipped.finish(.skipped(reason: "needs 'test', which failed"))
        let text = Summary.render([ok, failed, skipped], elapsed: 1.5, logDirectory: "/logs", stop: nil)
        let rows = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows[0], "step    result             tries  time")
        XCTAssertTrue(rows[1].hasPrefix("build   ✓ ok                   1  "), rows[1])
        XCTAssertTrue(rows[2].hasPrefix("test    ✗ failed               1  "), rows[2])
        XCTAssertEqual(rows[3], "deploy  - skipped              -  -")
        XCTAssertEqual(rows[4], "Failed in 1.50s: 1 succeeded, 1 failed, 1 skipped.")
        XCTAssertEqual(rows[5], "Logs: /logs")
        XCTAssertTrue(Summary.render([ok], elapsed: 0, logDirectory: "/l", stop: .interrupted).contains("Interrupted in 0.00s: 1 succeeded."))
    }

    func testDurationsAreShortAndReadable() {
        XCTAssertEqual(formatDuration(0.421), "0.42s")
        XCTAssertEqual(formatDuration(12.34), "12.3s")
        XCTAssertEqual(formatDuration(125), "2m05s")
    }
}
