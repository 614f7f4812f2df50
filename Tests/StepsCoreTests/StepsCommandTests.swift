import Foundation
import ProceduresTestSupport
import XCTest
@testable import StepsCore

/// The command's stages, in process: what each mode prints and its exit status, the errors
/// thrown before anything runs, and a dry run that builds no run.
final class StepsCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("steps-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private struct Outcome {
        var printed: String
        var status: Int32?
        var command: StepsCommand
    }

    /// Starts the command with `arguments`; what it printed and the status it exited with.
    private func start(_ arguments: [String]) throws(StepsError) -> Outcome {
        let printed = LockedBox("")
        let status = LockedBox<Int32?>(nil)
        let command = StepsCommand(arguments: arguments, write: { text in printed.mutate { $0 += text } }, terminal: false)
        try command.start { code in status.mutate { $0 = code } }
        return Outcome(printed: printed.value, status: status.value, command: command)
    }

    private func pipeline(_ text: String) throws -> String {
        let url = directory.appendingPathComponent("pipeline.json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func testHelpAndVersionArePrintedAndExitZero() throws {
        let help = try start(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertEqual(help.printed, Options.usage + "\n")
        let version = try start(["--version", "--jobs", "2"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.printed, "steps \(StepsVersion.current)\n")
    }

    func testADryRunPrintsThePlanWritesTheGraphAndBuildsNoRun() throws {
        let path = try pipeline(#"{ "steps": [ { "name": "a", "run": "touch ran" }, { "name": "b", "needs": ["a"], "run": "true" } ] }"#)
        let graph = directory.appendingPathComponent("graph.dot").path
        let outcome = try start([path, "-n", "--graph", graph])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.printed.hasPrefix("Plan: 2 step(s)"), outcome.printed)
        XCTAssertNil(outcome.command.run, "a dry run builds no run")
        XCTAssertNil(outcome.command.session)
        XCTAssertTrue(try String(contentsOfFile: graph, encoding: .utf8).hasPrefix("digraph "))
        let made = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(made, ["graph.dot", "pipeline.json"], "no logs, no state, nothing ran")
    }

    func testEveryErrorBeforeTheRunIsThrownWithStatus2() throws {
        let path = try pipeline(#"{ "steps": [ { "name": "a", "run": 1 } ] }"#)
        let cases: [([String], [String])] = [
            (["--jobs"], ["steps: --jobs needs a value (see steps --help)"]),
            ([path], ["\(path):1:36: step 'a': field 'run': expected a string, found a number"]),
            ([directory.appendingPathComponent("none.json").path], ["\(directory.path)/none.json: cannot read: No such file or directory"]),
        ]
        for (arguments, lines) in cases {
            do {
                let outcome = try start(arguments)
                XCTFail("\(arguments) started: \(outcome.printed)")
            } catch {
                XCTAssertEqual(error, StepsError(lines: lines, exitStatus: 2), "\(arguments)")
            }
        }
        let valid = try pipeline(#"{ "steps": [ { "name": "a", "run": "true" } ] }"#)
        XCTAssertThrowsError(try start([valid, "--trace", directory.path])) { error in
            XCTAssertEqual((error as? StepsError)?.lines, ["steps: cannot write the trace to \(directory.path): Is a directory"])
        }
    }

    func testTheBundledPipelineIsReadWhenNoFileIsGivenAndItsDryRunMakesNoDirectory() throws {
        // Compared before and after: the shared temporary directory may hold one left by an
        // earlier process that had this one's process number.
        let before = try Self.demoDirectories()
        let outcome = try start(["--dry-run"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.printed.hasPrefix("Plan: 11 step(s)"), outcome.printed)
        XCTAssertEqual(
            try Self.demoDirectories().subtracting(before), [],
            "the directory the bundled pipeline would run in is made only to run it")
    }

    private static func demoDirectories() throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
                .filter { $0.hasPrefix("steps-demo-\(getpid())-") })
    }
}
