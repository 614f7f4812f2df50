import Foundation
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
        let examples = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Examples").path)
            .filter { $0.hasSuffix(".json") }
        XCTAssertFalse(examples.isEmpty)
        for example in examples {
            let result = try run([root.appendingPathComponent("Examples/\(example)").path, "--dry-run"])
            XCTAssertEqual(result.status, 0, "\(example): \(result.errors)")
        }
    }
}
