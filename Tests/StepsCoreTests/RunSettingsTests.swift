import XCTest
@testable import StepsCore

/// What a run needs from this machine, checked in process before anything runs.
final class RunSettingsTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data().write(to: directory.appendingPathComponent("file"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func settings(_ arguments: [String]) throws -> RunSettings {
        let pipeline = try PipelineFile.parse(
            Data(#"{ "jobs": 5, "steps": [ { "name": "build", "run": "x" } ] }"#.utf8), named: "p.json", directory: directory
        ).pipeline
        return try RunSettings(options: try Options.parse(arguments), pipeline: pipeline, terminal: false)
    }

    private func refusal(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try settings(arguments)
            XCTFail("accepted", file: file, line: line)
            return []
        } catch let error as StepsError {
            XCTAssertEqual(error.exitStatus, 2, file: file, line: line)
            return error.lines.map { $0.replacingOccurrences(of: directory.path, with: "D") }
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return []
        }
    }

    func testJobsAndTheLogDirectoryComeFromTheCommandLineThenThePipeline() throws {
        XCTAssertEqual(try settings([]).jobs, 5)
        XCTAssertEqual(try settings(["-j2"]).jobs, 2)
        XCTAssertEqual(try settings([]).logDirectory.path, directory.appendingPathComponent(".steps/logs").path)
        XCTAssertEqual(try settings(["--logs", directory.appendingPathComponent("L").path]).logDirectory.lastPathComponent, "L")
    }

    func testEveryUnwritableOutputIsRefusedAtOnce() {
        let file = directory.appendingPathComponent("file").path
        XCTAssertEqual(refusal(["--trace", "D/none/t.json".replacingOccurrences(of: "D", with: directory.path),
                                "--graph", directory.path, "--logs", file + "/logs"]), [
            "steps: cannot write the trace to D/none/t.json: D/none: No such file or directory",
            "steps: cannot write the graph to D: Is a directory",
            "steps: cannot create the log directory D/file/logs: Not a directory",
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent(".steps").path), "nothing was made")
    }

    func testForcingAStepThatDoesNotExistIsRefused() {
        XCTAssertEqual(refusal(["--force", "biuld"]), ["steps: --force biuld: no step is named 'biuld' (did you mean 'build'?) (see steps --help)"])
    }
}
