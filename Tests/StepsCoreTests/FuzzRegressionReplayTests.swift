import Foundation
import ProceduresTestSupport
import XCTest
@testable import StepsCore

/// The inputs the fuzzer keeps as regressions (Fuzz/regressions/) and the example pipelines,
/// read in process as the fuzz target reads them: a pipeline whose plan prints and whose graph
/// draws, or problems that each name their place in the file and read as English.
final class FuzzRegressionReplayTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryRegressionIsAPipelineOrLocatedProblems() throws {
        var inputs: [URL] = []
        for folder in ["Fuzz/regressions", "Examples"] { inputs += try PipelineFiles.all(in: root.appendingPathComponent(folder)) }
        XCTAssertGreaterThan(inputs.count, 10)
        var refused = 0
        for input in inputs {
            let name = input.lastPathComponent
            let data = try Data(contentsOf: input)
            do {
                let document = try PipelineFile.parse(data, named: "fuzz.json", directory: URL(fileURLWithPath: "/"))
                XCTAssertTrue(PipelinePlan(document.pipeline).render(jobs: 1).hasPrefix("Plan: "), name)
                XCTAssertTrue(PipelineGraph(pipeline: document.pipeline).dot.hasPrefix("digraph "), name)
            } catch {
                refused += 1
                XCTAssertFalse(error.lines.isEmpty, name)
                // A marker the input itself contains may be quoted (an unknown field's name).
                let text = String(decoding: data, as: UTF8.self)
                let dumps = ["(location:", "FoundationEssentials", "Optional(", "DecodingError"].filter { !text.contains($0) }
                for line in error.lines {
                    XCTAssertNotNil(line.range(of: #"^fuzz\.json:[0-9]+:[0-9]+: "#, options: .regularExpression), "\(name): not located: \(line)")
                    XCTAssertFalse(line.unicodeScalars.contains(where: String.needsEscape), "\(name): a control character in \(line.debugDescription)")
                    for dump in dumps {
                        XCTAssertFalse(line.contains(dump), "\(name): \(line)")
                    }
                }
            }
        }
        XCTAssertEqual(refused, try PipelineFiles.all(in: root.appendingPathComponent("Fuzz/regressions")).count,
            "every regression is a file that cannot run")
    }
}
