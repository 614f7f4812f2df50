import Foundation
import ProceduresTestSupport
import XCTest

/// Running an example leaves its state next to it (`Examples/.steps/`: logs and the
/// up-to-date state); the tests that go through every example read only the pipeline files,
/// so a run of the examples never breaks them.
final class ExampleFolderTests: StepsTestCase {
    func testTheExamplesAreTheVisibleJSONFilesEvenAfterARun() throws {
        let examples = directory.appendingPathComponent("Examples")
        try FileManager.default.createDirectory(at: examples.appendingPathComponent("notes"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: examples.appendingPathComponent(".hidden.json"))
        try Data("text".utf8).write(to: examples.appendingPathComponent("README"))
        try Data(#"{ "steps": [ { "name": "count", "run": "ls | wc -l", "sources": ["*.json"] } ] }"#.utf8)
            .write(to: examples.appendingPathComponent("count.json"))
        let first = try run(["Examples/count.json", "--plain"])
        XCTAssertEqual(first.status, 0, first.output + first.errors)
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: examples.appendingPathComponent(".steps/logs").path, isDirectory: &isDirectory))
        XCTAssertTrue(isDirectory.boolValue, "the run kept its logs and state in Examples/.steps")

        let found = try PipelineFiles.all(in: examples)
        XCTAssertEqual(found.map(\.lastPathComponent), ["count.json"])
        for file in found {
            let result = try run([file.path, "--dry-run"])
            XCTAssertEqual(result.status, 0, result.errors)
        }
    }
}
