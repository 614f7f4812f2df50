import Foundation
import XCTest

/// `--dry-run` looks up every step's program as the real run would (PATH, working directory,
/// the shell) and refuses a pipeline whose program is missing, like any other check error.
final class DryRunProgramTests: StepsTestCase {
    func testAMissingProgramFailsTheDryRunWithItsPlace() throws {
        let path = try write(#"""
            { "steps": [
              { "name": "build", "argv": ["swift-build-that-does-not-exist", "--release"] },
              { "name": "lint", "env": { "PATH": "/nowhere" }, "argv": ["ls"] },
              { "name": "docs", "cwd": "site", "run": "make" } ] }
            """#)
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 2, result.output + result.errors)
        XCTAssertEqual(result.output, "", "no plan for a pipeline that cannot run")
        let path0 = ProcessInfo.processInfo.environment["PATH"] ?? ""
        XCTAssertEqual(result.errorLines.map { $0.replacingOccurrences(of: path, with: "pipeline.json").replacingOccurrences(of: directory.path, with: "D") }, [
            "pipeline.json:2:31: step 'build': field 'argv[0]': no program 'swift-build-that-does-not-exist' in PATH (\(path0))",
            "pipeline.json:3:61: step 'lint': field 'argv[0]': no program 'ls' in PATH (/nowhere)",
            "pipeline.json:4:28: step 'docs': field 'cwd': the directory D/site cannot be used: no such directory",
        ])
    }

    func testAProgramAStepItNeedsMayMakeIsANoteAndTheDryRunSucceeds() throws {
        let path = try write(#"""
            { "steps": [
              { "name": "build", "run": "mkdir -p bin && cp /bin/true bin/app" },
              { "name": "run", "needs": ["build"], "argv": ["./bin/app"] } ] }
            """#)
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.hasPrefix("Plan: 2 step(s)"), result.output)
        XCTAssertTrue(result.output.hasSuffix(
            "\(path):3:49: note: step 'run': field 'argv[0]': no program at ./bin/app (from \(directory.path)) yet; a step it needs may make it\n"),
            result.output)
        XCTAssertEqual(try run([path]).status, 0, "and the real run finds it")
    }
}
