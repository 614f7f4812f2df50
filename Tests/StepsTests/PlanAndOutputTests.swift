import Foundation
import XCTest

/// The plan (`--dry-run`), the graph (`--graph`), the trace (`--trace`), the bundled example,
/// large pipelines, and the terminal view.
final class PlanAndOutputTests: StepsTestCase {
    private let diamond = #"""
        { "steps": [
          { "name": "package", "needs": ["test", "docs"], "run": "touch package-ran" },
          { "name": "test", "needs": ["build"], "retry": { "attempts": 3, "backoff": 1 }, "timeout": 60, "run": "touch test-ran" },
          { "name": "docs", "needs": ["build"], "exclusive": ["cpu"], "when": { "env": "DOCS" }, "run": "touch docs-ran" },
          { "name": "build", "argv": ["touch", "build ran"] }
        ] }
        """#

    func testDryRunPrintsThePlanInOrderAndRunsNothing() throws {
        try write(diamond)
        let result = try run(["pipeline.json", "--dry-run", "--jobs", "3"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(result.output, """
            Plan: 4 step(s), at most 3 at a time; each stage starts once the steps it needs have succeeded.
                1  build    $ touch 'build ran'
                2  test     $ touch test-ran
                            needs build · retry 3x (back-off 1s) · timeout 60s
                2  docs     $ touch docs-ran
                            needs build · exclusive cpu · when $DOCS is set
                3  package  $ touch package-ran
                            needs test, docs

            """)
        let ran = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix("ran") }
        XCTAssertEqual(ran, [])
    }

    func testGraphIsWrittenAsDOT() throws {
        try write(diamond)
        let result = try run(["pipeline.json", "--dry-run", "--graph", "graph.dot"])
        XCTAssertEqual(result.status, 0, result.errors)
        let dot = try read("graph.dot")
        XCTAssertTrue(dot.hasPrefix("digraph pipeline {"), dot)
        for edge in [#""test" -> "package""#, #""docs" -> "package""#, #""build" -> "test""#, #""build" -> "docs""#] {
            XCTAssertTrue(dot.contains(edge), "missing \(edge) in \(dot)")
        }
        XCTAssertEqual(dot.components(separatedBy: " -> ").count - 1, 4)
    }

    func testTraceHasASliceForEveryStepThatRan() throws {
        try write(diamond)
        let result = try run(["pipeline.json", "--trace", "trace.json"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let data = try Data(contentsOf: directory.appendingPathComponent("trace.json"))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try XCTUnwrap(document["traceEvents"] as? [[String: Any]])
        let slices = events.filter { $0["ph"] as? String == "X" }
        XCTAssertEqual(Set(slices.compactMap { $0["name"] as? String }), ["build", "test", "package"], "docs was skipped")
        for slice in slices {
            XCTAssertNotNil(slice["ts"] as? Int)
            XCTAssertNotNil(slice["dur"] as? Int)
        }
    }

    func testBundledExampleShowsEveryFeatureAndSucceeds() throws {
        let result = try run(["--plain"], environment: ["STEPS_DEMO_DEPLOY_TOKEN": ""])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        for expected in [
            "retry fetch-deps: try 1 exit status 1", "✓ fetch-deps", "(2 tries)",
            "retry warm-cache: try 1 timed out after 0.6s", "✓ warm-cache",
            "✓ linux-extras", "- deploy  skipped: $STEPS_DEMO_DEPLOY_TOKEN is not set", "Succeeded in",
        ] {
            XCTAssertTrue(result.output.contains(expected), "missing '\(expected)' in\n\(result.output)")
        }
        XCTAssertLessThan(result.seconds, 15)
    }

    /// A generated pipeline: 8 lanes, each step needing the one 8 before it, and every 50th
    /// step needing the 8 before it (a fan-in).
    private func generated(_ count: Int) -> String {
        let steps = (0..<count).map { index -> String in
            var needs: [Int] = index >= 8 ? [index - 8] : []
            if index % 50 == 49 { needs = Array(max(0, index - 8)..<index) }
            let list = needs.map { "\"s\($0)\"" }.joined(separator: ",")
            return #"{ "name": "s\#(index)", "argv": ["true"], "needs": [\#(list)] }"#
        }
        return #"{ "steps": ["# + steps.joined(separator: ",\n") + "] }"
    }

    func testFiveHundredStepsAtJobs8FinishInTimeLinearInSize() throws {
        try write(generated(250), to: "small.json")
        try write(generated(500), to: "large.json")
        let small = try run(["small.json", "--jobs", "8"])
        XCTAssertEqual(small.status, 0, small.errors)
        let large = try run(["large.json", "--jobs", "8"])
        XCTAssertEqual(large.status, 0, large.errors)
        XCTAssertEqual(large.output.components(separatedBy: "✓ s").count - 1, 500)
        // Linear would be 2x; quadratic 4x. The loose bound leaves room for a loaded machine.
        XCTAssertLessThan(large.seconds, 3.5 * small.seconds + 1, "250 steps: \(small.seconds) s, 500 steps: \(large.seconds) s")
        XCTAssertLessThan(large.seconds, 30)
    }
}
