import Foundation
import XCTest
@testable import StepsCore

/// `--dry-run`'s program check, in process: each step's program and directory looked up as
/// the run would, what is missing located in the file, and what a needed step may make noted.
final class ProgramCheckTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("program-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func check(_ text: String, shell: String = "/bin/sh") throws -> (problems: [String], notes: [String]) {
        let document = try PipelineFile.parse(Data(text.utf8), named: "p.json", directory: directory)
        let check = ProgramCheck(document, environment: ["PATH": "/usr/bin:/bin"], shell: shell)
        let shorten = { (line: String) in line.replacingOccurrences(of: self.directory.path, with: "D") }
        return (document.render(check.problems).map(shorten), document.render(check.notes).map(shorten))
    }

    func testProgramsFoundAsTheRunFindsThemPass() throws {
        let result = try check(#"""
            { "steps": [ { "name": "a", "argv": ["sh", "-c", "true"] }, { "name": "b", "run": "true" },
                         { "name": "c", "argv": ["/bin/sh"] }, { "name": "d", "env": { "PATH": "/bin" }, "argv": ["ls"] } ] }
            """#)
        XCTAssertEqual(result.problems, [])
        XCTAssertEqual(result.notes, [])
    }

    func testWhatIsMissingIsAProblemAtItsPlace() throws {
        let result = try check(#"""
            { "env": { "PATH": "/nowhere" }, "steps": [
              { "name": "a", "argv": ["ls"] },
              { "name": "b", "env": { "PATH": "/also/nowhere" }, "argv": ["sh"] },
              { "name": "c", "argv": ["./tool"] },
              { "name": "d", "cwd": "out", "argv": ["/bin/sh"] },
              { "name": "e", "run": "true" } ] }
            """#, shell: "/no/shell")
        XCTAssertEqual(result.problems, [
            "p.json:2:27: step 'a': field 'argv[0]': no program 'ls' in PATH (/nowhere)",
            "p.json:3:63: step 'b': field 'argv[0]': no program 'sh' in PATH (/also/nowhere)",
            "p.json:4:27: step 'c': field 'argv[0]': no program at ./tool (from D)",
            "p.json:5:25: step 'd': field 'cwd': the directory D/out cannot be used: no such directory",
            "p.json:6:25: step 'e': field 'run': no program at /no/shell",
        ])
    }

    func testAPathThatANeededStepMayMakeIsANote() throws {
        let result = try check(#"""
            { "steps": [ { "name": "build", "run": "mkdir out && cp /bin/true out/app" },
                         { "name": "app", "needs": ["build"], "cwd": "out", "argv": ["./app"] },
                         { "name": "tool", "needs": ["build"], "argv": ["no-such-program-on-path"] } ] }
            """#)
        XCTAssertEqual(result.notes, ["p.json:2:58: note: step 'app': field 'cwd': the directory D/out cannot be used: no such directory yet; a step it needs may make it"])
        XCTAssertEqual(result.problems, ["p.json:3:61: step 'tool': field 'argv[0]': no program 'no-such-program-on-path' in PATH (/usr/bin:/bin)"],
            "a bare name is looked up in PATH, which a step rarely changes")
    }

    func testAFileThatCannotBeExecutedIsAProblem() throws {
        try Data("data".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        let result = try check(#"{ "steps": [ { "name": "a", "argv": ["./notes.txt"] }, { "name": "b", "argv": ["/tmp"] } ] }"#)
        XCTAssertEqual(result.problems, [
            "p.json:1:38: step 'a': field 'argv[0]': ./notes.txt cannot be executed: Permission denied",
            "p.json:1:80: step 'b': field 'argv[0]': /tmp is a directory, not a program",
        ])
    }
}
