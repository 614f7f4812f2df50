import Foundation
import Procedures
import ProceduresProcess
import ProceduresTesting
import XCTest

/// `--trace` says how each step ended, and scripts/render-trace.py draws it: one row per step,
/// back-off waits as waits, up-to-date and skipped steps in colours of their own.
final class TimelineTests: StepsTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private let pipeline = #"""
        { "steps": [
          { "name": "flaky", "retry": { "attempts": 2, "backoff": 0.3 }, "run": "[ -e tried ] || { touch tried; exit 1; }" },
          { "name": "cached", "sources": ["input.txt"], "run": "true" },
          { "name": "never", "when": { "env": "STEPS_TEST_NEVER_SET" }, "run": "true" },
          { "name": "broken", "run": "exit 4" }
        ] }
        """#

    /// The second run of the pipeline, traced.
    private func tracedRun() throws -> [String: Any] {
        try write(pipeline)
        try write("x\n", to: "input.txt")
        _ = try run(["pipeline.json"])
        try FileManager.default.removeItem(at: directory.appendingPathComponent("tried"))
        let result = try run(["pipeline.json", "--trace", "trace.json"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        let data = try Data(contentsOf: directory.appendingPathComponent("trace.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testTheTraceSaysHowEachStepEnded() throws {
        let document = try tracedRun()
        let steps = try XCTUnwrap((document["otherData"] as? [String: Any])?["steps"] as? [String: [String: String]])
        XCTAssertEqual(steps["flaky"], ["outcome": "ok"])
        XCTAssertEqual(steps["cached"], ["outcome": "up to date"])
        XCTAssertEqual(steps["never"], ["outcome": "skipped", "reason": "$STEPS_TEST_NEVER_SET is not set"])
        XCTAssertEqual(steps["broken"], ["outcome": "failed", "reason": "exit status 4"])
        XCTAssertNotNil(document["traceEvents"] as? [Any], "still a Chrome trace")
    }

    func testTheTimelineDrawsARowPerStepWithBackoffsUpToDateAndSkippedStepsApart() throws {
        _ = try tracedRun()
        let render = ProcessProcedure(
            executable: "python3",
            arguments: [root.appendingPathComponent("scripts/render-trace.py").path, "trace.json", "timeline.svg"],
            workingDirectory: directory)
        wait(for: render, timeout: 30)
        XCTAssertEqual(render.errors.count, 0, "python3 is needed to draw timelines: \(render.errors)")
        let svg = try read("timeline.svg")
        // Each row: `<g class="row" data-name="…" data-outcome="…">` up to its `</g>`.
        var rows: [String: (outcome: String, body: String)] = [:]
        for chunk in svg.components(separatedBy: #"<g class="row" data-name=""#).dropFirst() {
            let name = String(chunk.prefix { $0 != "\"" })
            let outcome = chunk.components(separatedBy: #"data-outcome=""#)[1].prefix { $0 != "\"" }
            rows[name] = (String(outcome), chunk.components(separatedBy: "</g>")[0])
        }
        XCTAssertEqual(Set(rows.keys), ["flaky", "cached", "never", "broken"], "one row per step: \(svg)")
        XCTAssertEqual(rows["cached"]?.outcome, "up to date")
        XCTAssertEqual(rows["never"]?.outcome, "skipped")
        XCTAssertTrue(rows["cached"]!.body.contains(#"class="up-to-date""#), rows["cached"]!.body)
        XCTAssertTrue(rows["never"]!.body.contains(#"class="skipped""#), rows["never"]!.body)
        let flaky = rows["flaky"]!.body
        XCTAssertTrue(flaky.contains(#"class="failed""#) && flaky.contains(#"class="ok""#), "both tries on the step's row: \(flaky)")
        XCTAssertTrue(flaky.contains(#"class="backoff""#), "the wait between them drawn as a wait: \(flaky)")
        XCTAssertFalse(rows["broken"]!.body.contains(#"class="backoff""#))
        XCTAssertTrue(rows["broken"]!.body.contains(#"class="failed""#))
    }
}
