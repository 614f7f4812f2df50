import XCTest
@testable import StepsCore

/// The graph `--graph` writes, in process: drawn from the pipeline alone (so that `--dry-run`
/// builds no run), an arrow from each step to the steps that need it, a `when` under its step's
/// name, and each exclusive category joined to its steps.
final class PipelineGraphTests: XCTestCase {
    private func pipeline(_ text: String) throws -> Pipeline {
        try PipelineFile.parse(Data(text.utf8), named: "p.json", directory: URL(fileURLWithPath: "/p")).pipeline
    }

    private let diamond = #"""
        { "steps": [
          { "name": "package", "needs": ["test", "docs"], "run": "tar" },
          { "name": "test", "needs": ["build"], "exclusive": ["disk"], "run": "make test" },
          { "name": "docs", "when": { "output": "build", "matches": "ok" }, "exclusive": ["disk"], "run": "make docs" },
          { "name": "build", "argv": ["make", "all things"] } ] }
        """#

    /// The solid arrows, as `from -> to`.
    private func arrows(_ dot: String) -> Set<String> {
        Set(dot.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.range(of: #"^  "[^"]*" -> "[^"]*";$"#, options: .regularExpression) else { return nil }
            return String(line[match]).trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: ";", with: "")
        })
    }

    func testTheGraphHasAnArrowFromEachStepToTheStepsThatNeedIt() throws {
        let dot = PipelineGraph(pipeline: try pipeline(diamond)).dot
        XCTAssertTrue(dot.hasPrefix("digraph "), dot)
        XCTAssertEqual(arrows(dot), ["build -> test", "test -> package", "docs -> package"], dot)
    }

    func testAWhenIsShownUnderItsStepAndADottedArrowComesFromTheStepWhoseOutputItReads() throws {
        let dot = PipelineGraph(pipeline: try pipeline(diamond)).dot
        XCTAssertTrue(dot.contains(#""docs" [label="docs\nwhen output of build matches /ok/", style="rounded,dashed""#), dot)
        XCTAssertTrue(dot.contains(#""build" -> "docs" [style=dotted, label="output"];"#), dot)
    }

    func testEachExclusiveCategoryIsAHexagonJoinedToItsSteps() throws {
        let graph = PipelineGraph(pipeline: try pipeline(diamond))
        XCTAssertEqual(graph.categories.map(\.name), ["disk"])
        let dot = graph.dot
        XCTAssertTrue(dot.contains(#""exclusive:disk" [label="exclusive: disk", shape=hexagon"#), dot)
        for step in ["test", "docs"] {
            XCTAssertTrue(dot.contains(#""exclusive:disk" -> "\#(step)" [style=dashed, arrowhead=none"#), dot)
        }
        XCTAssertFalse(dot.contains(#""exclusive:disk" -> "build""#), dot)
    }
}
