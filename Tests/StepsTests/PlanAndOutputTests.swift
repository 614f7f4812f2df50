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
        XCTAssertTrue(dot.hasPrefix("digraph "), dot)
        // Nodes are `nID [label="name"]`, edges `nID -> nID`: read them back by name.
        var names: [String: String] = [:]
        var edges: Set<String> = []
        for line in dot.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            if words.count == 3, words[1] == "->" {
                edges.insert(words[0] + " " + words[2].trimmingCharacters(in: [";"]))
            } else if let label = line.range(of: #"label="[^"]*""#, options: .regularExpression), let id = words.first {
                names[id] = String(line[label].dropFirst(7).dropLast())
            }
        }
        let named = Set(edges.map { edge in edge.split(separator: " ").map { names[String($0)] ?? "?" }.joined(separator: " -> ") })
        XCTAssertEqual(named, ["build -> test", "build -> docs", "test -> package", "docs -> package"], dot)
        XCTAssertEqual(Set(names.values), ["build", "test", "docs", "package"], "the steps alone: \(dot)")
    }

    func testAnUnwritableGraphFileIsABadInvocation() throws {
        try write(diamond)
        let result = try run(["pipeline.json", "--graph", "no-such-directory/graph.dot"])
        XCTAssertEqual(result.status, 2, result.output + result.errors)
        XCTAssertEqual(result.errorLines.count, 1, result.errors)
        XCTAssertTrue(result.errors.hasPrefix("steps: cannot write the graph to no-such-directory/graph.dot: "), result.errors)
        XCTAssertEqual(result.output, "", "nothing ran")
    }

    func testTraceHasASliceForEveryStepThatRan() throws {
        try write(diamond)
        let result = try run(["pipeline.json", "--trace", "trace.json"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let data = try Data(contentsOf: directory.appendingPathComponent("trace.json"))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try XCTUnwrap(document["traceEvents"] as? [[String: Any]])
        // A slice for each step and each try that ran; the skipped step was skipped by its
        // conditions, before it started, so it has none.
        let slices = events.filter { $0["ph"] as? String == "X" }
        let names = Set(slices.compactMap { $0["name"] as? String })
        XCTAssertTrue(names.isSuperset(of: ["build", "test", "package", "build · try 1", "test · try 1", "package · try 1"]), "\(names)")
        XCTAssertFalse(names.contains { $0.hasPrefix("docs") }, "docs was skipped: \(names)")
        for slice in slices {
            XCTAssertNotNil(slice["ts"] as? NSNumber)
            XCTAssertNotNil(slice["dur"] as? NSNumber)
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
        // On one line, as generators write it: positions must not be counted from the line's start.
        return #"{ "steps": ["# + steps.joined(separator: ",") + "] }"
    }

    func testAThousandStepsAtJobs8FinishInTimeLinearInSize() throws {
        try write(generated(500), to: "small.json")
        try write(generated(1000), to: "large.json")
        let small = try run(["small.json", "--jobs", "8"])
        XCTAssertEqual(small.status, 0, small.errors)
        let large = try run(["large.json", "--jobs", "8"])
        XCTAssertEqual(large.status, 0, large.errors)
        XCTAssertEqual(large.output.components(separatedBy: "✓ s").count - 1, 1000)
        // Linear would be 2x; quadratic 4x. The bound leaves room for a loaded machine.
        XCTAssertLessThan(large.seconds, 3 * small.seconds + 0.5, "500 steps: \(small.seconds) s, 1000 steps: \(large.seconds) s")
        XCTAssertLessThan(large.seconds, 30)
    }
}
