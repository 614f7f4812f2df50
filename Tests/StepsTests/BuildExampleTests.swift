import Foundation
import XCTest

/// Examples/build.json, this package's own build as a pipeline (the worked example of
/// Documentation/Pipelines.md), is up to date on its second run. Each step's command is
/// replaced by one that records it ran (and makes what it generates): a real `swift build`
/// would take minutes. Its sources are this package's own, seen through links from a
/// scratch directory, so that the state file is not written into the repository.
final class BuildExampleTests: StepsTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testThePackagesOwnBuildIsUpToDateOnItsSecondRun() throws {
        for entry in ["Package.swift", "Sources", "Tests", "Documentation", "scripts"] {
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(entry), withDestinationURL: root.appendingPathComponent(entry))
        }
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/build.json"))
        var pipeline = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var steps = try XCTUnwrap(pipeline["steps"] as? [[String: Any]])
        for index in steps.indices {
            let name = try XCTUnwrap(steps[index]["name"] as? String)
            XCTAssertNotNil(steps[index]["sources"], "\(name) has sources: it can be up to date")
            var command = "echo \(name) >> ran.txt"
            for path in steps[index]["generates"] as? [String] ?? [] {
                command += "; mkdir -p \"$(dirname '\(path)')\" && touch '\(path)'"
            }
            steps[index]["argv"] = nil
            steps[index]["run"] = command
        }
        pipeline["steps"] = steps
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Examples"), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: pipeline).write(to: directory.appendingPathComponent("Examples/build.json"))

        let first = try run(["Examples/build.json"])
        XCTAssertEqual(first.status, 0, first.output + first.errors)
        let names = steps.compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(try read("ran.txt").split(separator: "\n").map(String.init)), Set(names), first.output)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("ran.txt"))

        let second = try run(["Examples/build.json"])
        XCTAssertEqual(second.status, 0, second.output + second.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("ran.txt").path), second.output)
        XCTAssertTrue(second.output.contains(": \(steps.count) up to date."), second.output)
    }

    /// The guide's worked example is the file itself.
    func testTheGuidesWorkedExampleIsExamplesBuildJSON() throws {
        let guide = try String(contentsOf: root.appendingPathComponent("Documentation/Pipelines.md"), encoding: .utf8)
        let file = try String(contentsOf: root.appendingPathComponent("Examples/build.json"), encoding: .utf8)
        XCTAssertTrue(guide.contains("```json\n" + file + "```\n"), "Documentation/Pipelines.md shows Examples/build.json as it is")
    }
}
