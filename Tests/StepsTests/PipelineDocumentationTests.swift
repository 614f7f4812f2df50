import Foundation
import ProceduresTestSupport
import XCTest

/// Keeps the pipeline guide and the example pipelines honest: every pipeline they show is
/// accepted by the real `steps` (checked with `--dry-run`, which reads and validates the file).
final class PipelineDocumentationTests: StepsTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func jsonBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```json" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    func testEveryPipelineInTheGuideIsValid() throws {
        let guide = try String(contentsOf: root.appendingPathComponent("Documentation/Pipelines.md"), encoding: .utf8)
        let blocks = jsonBlocks(in: guide)
        XCTAssertFalse(blocks.isEmpty)
        for (index, block) in blocks.enumerated() {
            let path = try write(block, to: "guide-\(index).json")
            let result = try run([path, "--dry-run"])
            XCTAssertEqual(result.status, 0, "block \(index) of Pipelines.md: \(result.errors)")
        }
    }

    func testEveryExamplePipelineIsValid() throws {
        let examples = try PipelineFiles.all(in: root.appendingPathComponent("Examples"))
        XCTAssertFalse(examples.isEmpty)
        for example in examples {
            let result = try run([example.path, "--dry-run"])
            XCTAssertEqual(result.status, 0, "\(example.lastPathComponent): \(result.errors)")
        }
    }
    /// The Observability guide's pictures are drawn from the bundled pipeline: its graph is
    /// the one `steps --graph` writes today, and both pictures name every step.
    func testTheObservabilityGuidesPicturesShowTheBundledPipeline() throws {
        let images = root.appendingPathComponent("Documentation/Images")
        let result = try run(["--dry-run", "--graph", "graph.dot"])
        XCTAssertEqual(result.status, 0, result.errors)
        let graph = try read("graph.dot")
        XCTAssertEqual(
            try String(contentsOf: images.appendingPathComponent("steps-demo-graph.dot"), encoding: .utf8), graph,
            "the bundled pipeline changed: run scripts/demo-pictures.sh Documentation/Images")
        // The steps' nodes: `"name" [label="name…`.
        let names = graph.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  \""), let end = line.dropFirst(3).firstIndex(of: "\""),
                line[end...].hasPrefix("\" [label=\""), !line.hasPrefix("  \"exclusive:")
            else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        XCTAssertEqual(names.count, 11, graph)
        for picture in ["steps-demo-graph.svg", "steps-demo-timeline.svg"] {
            // Graphviz writes a hyphen as a character reference.
            let svg = try String(contentsOf: images.appendingPathComponent(picture), encoding: .utf8)
                .replacingOccurrences(of: "&#45;", with: "-")
            for name in names { XCTAssertTrue(svg.contains(">\(name)<"), "\(picture) does not show \(name)") }
        }
        let guide = try String(contentsOf: root.appendingPathComponent("Documentation/Observability.md"), encoding: .utf8)
        XCTAssertTrue(guide.contains("](Images/steps-demo-graph.svg)"))
        XCTAssertTrue(guide.contains("](Images/steps-demo-timeline.svg)"))
    }
}
