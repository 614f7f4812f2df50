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

    /// The nodes (`"id" [attributes];`) and edges (`"from" -> "to" [attributes];`) of a DOT file.
    private func parseDOT(_ dot: String) -> (nodes: [String: String], edges: [String: String]) {
        var nodes: [String: String] = [:]
        var edges: [String: String] = [:]
        let node = try! NSRegularExpression(pattern: #"^  "([^"]+)" \[(.*)\];$"#)
        let edge = try! NSRegularExpression(pattern: #"^  "([^"]+)" -> "([^"]+)"(?: \[(.*)\])?;$"#)
        for line in dot.split(separator: "\n").map(String.init) {
            let range = NSRange(line.startIndex..., in: line)
            func group(_ match: NSTextCheckingResult, _ index: Int) -> String {
                Range(match.range(at: index), in: line).map { String(line[$0]) } ?? ""
            }
            if let match = edge.firstMatch(in: line, range: range) {
                edges[group(match, 1) + " -> " + group(match, 2)] = group(match, 3)
            } else if let match = node.firstMatch(in: line, range: range) {
                nodes[group(match, 1)] = group(match, 2)
            }
        }
        return (nodes, edges)
    }

    func testTheGraphShowsNeedsConditionsAndExclusiveCategories() throws {
        try write(#"""
            { "steps": [
              { "name": "build", "run": "true" },
              { "name": "probe", "run": "uname" },
              { "name": "seed", "needs": ["build"], "exclusive": ["db"], "run": "true" },
              { "name": "migrate", "needs": ["build"], "exclusive": ["db", "disk"], "run": "true" },
              { "name": "extras", "needs": ["build"], "when": { "output": "probe", "matches": "Linux\\b" }, "run": "true" },
              { "name": "deploy", "needs": ["seed", "migrate"], "when": { "env": "TOKEN", "exists": "app" }, "exclusive": ["disk"], "run": "true" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--dry-run", "--graph", "graph.dot"])
        XCTAssertEqual(result.status, 0, result.errors)
        let dot = try read("graph.dot")
        XCTAssertTrue(dot.hasPrefix("digraph "), dot)
        let (nodes, edges) = parseDOT(dot)
        XCTAssertEqual(Set(nodes.keys), ["build", "probe", "seed", "migrate", "extras", "deploy", "exclusive:db", "exclusive:disk"], dot)
        XCTAssertEqual(Set(edges.filter { $0.value.isEmpty }.keys), [
            "build -> seed", "build -> migrate", "build -> extras", "seed -> deploy", "migrate -> deploy",
        ], "the needs: \(dot)")
        XCTAssertEqual(edges["probe -> extras"], #"style=dotted, label="output""#, "a read output is drawn apart")

        // Each category: a hexagon in a colour of its own, joined to its steps, drawn in it.
        func color(_ attributes: String?) -> String? {
            attributes?.range(of: ##"color="#[0-9a-f]{6}""##, options: .regularExpression).map { String(attributes![$0]) }
        }
        let db = try XCTUnwrap(color(nodes["exclusive:db"]))
        let disk = try XCTUnwrap(color(nodes["exclusive:disk"]))
        XCTAssertNotEqual(db, disk)
        XCTAssertTrue(nodes["exclusive:db"]!.hasPrefix(#"label="exclusive: db", shape=hexagon"#), dot)
        for (category, members) in [("db", ["seed", "migrate"]), ("disk", ["migrate", "deploy"])] {
            let joined = edges.filter { $0.key.hasPrefix("exclusive:\(category) -> ") }.map { String($0.key.split(separator: " ").last!) }
            XCTAssertEqual(Set(joined), Set(members), dot)
        }
        XCTAssertEqual(color(nodes["seed"]), db)
        XCTAssertEqual(color(nodes["migrate"]), db, "a step of several categories takes the first one's colour")
        XCTAssertEqual(color(nodes["deploy"]), disk)

        // Conditions: under the name, on a dashed box.
        XCTAssertEqual(nodes["deploy"]?.hasPrefix(#"label="deploy\nwhen app exists\nwhen $TOKEN is set", style="rounded,dashed""#), true, dot)
        XCTAssertEqual(nodes["extras"]?.hasPrefix(#"label="extras\nwhen output of probe matches /Linux\\b/", style="rounded,dashed""#), true, dot)
        XCTAssertEqual(nodes["build"], #"label="build""#)
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

    /// The folders the bundled example made in the test's directory (its `TMPDIR`).
    private func demoDirectories() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("steps-demo-") }
    }

    func testTheBundledExampleLeavesNoDirectoryBehind() throws {
        let result = try run(["--plain"], environment: ["STEPS_DEMO_DEPLOY_TOKEN": ""])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertEqual(try demoDirectories(), [], "the run's temporary directory is removed at exit")
        let logs = try XCTUnwrap(result.output.split(separator: "\n").last { $0.hasPrefix("Logs: ") }, result.output)
        XCTAssertTrue(logs.hasSuffix(" (removed at exit with the bundled example's directory; --logs DIR keeps them)"), String(logs))

        let refused = try run(["--watch"])
        XCTAssertEqual(refused.status, 2, refused.output + refused.errors)
        XCTAssertEqual(try demoDirectories(), [], "nor when the run is refused")

        let kept = try run(["--plain", "--logs", "demo-logs"])
        XCTAssertEqual(kept.status, 0, kept.output + kept.errors)
        XCTAssertEqual(try demoDirectories(), [])
        XCTAssertTrue(kept.output.contains("Logs: \(directory.appendingPathComponent("demo-logs").path)\n") || kept.output.contains("Logs: demo-logs\n"), kept.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("demo-logs/compile.log").path), "--logs keeps them")
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
