import Foundation
import XCTest

/// The command line: values attached or apart, the version, limits stated as they are, and
/// paths the run will write checked before anything runs.
final class CommandLineTests: StepsTestCase {
    private let oneStep = #"{ "steps": [ { "name": "a", "run": "touch a-ran" } ] }"#

    func testJobsTakesItsValueAttachedOrApart() throws {
        let path = try write(oneStep)
        for arguments in [["-j", "3"], ["-j3"], ["--jobs", "3"], ["--jobs=3"]] {
            let result = try run([path, "--dry-run"] + arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.errors)")
            XCTAssertTrue(result.output.hasPrefix("Plan: 1 step(s), at most 3 at a time;"), "\(arguments): \(result.output)")
        }
    }

    func testVersionPrintsTheVersion() throws {
        let result = try run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertNotNil(result.output.range(of: #"^steps [0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression), result.output)
    }

    func testLimitsAreStatedAsTheyAre() throws {
        let cases: [([String], String)] = [
            (["--timeout", "0"], "steps: --timeout needs a number of seconds above 0, not '0' (see steps --help)"),
            (["--timeout", "-1"], "steps: --timeout needs a number of seconds above 0, not '-1' (see steps --help)"),
            (["--grace", "-1"], "steps: --grace needs a number of seconds of at least 0, not '-1' (see steps --help)"),
            (["-j0"], "steps: -j needs a whole number from 1 to 1000000, not '0' (see steps --help)"),
            (["--jobs", "1e9"], "steps: --jobs needs a whole number from 1 to 1000000, not '1e9' (see steps --help)"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertEqual(result.errorLines, [message])
        }
        let path = try write(#"{ "jobs": 2e6, "steps": [ { "name": "a", "run": "x", "retry": { "attempts": 1e9 } } ] }"#)
        let file = try run([path])
        XCTAssertEqual(file.status, 2)
        XCTAssertEqual(file.errorLines.map { $0.replacingOccurrences(of: path, with: "pipeline.json") }, [
            "pipeline.json:1:11: field 'jobs': must be a whole number from 1 to 1000000, not 2000000",
            "pipeline.json:1:77: step 'a': field 'retry.attempts': must be a whole number from 1 to 1000000, not 1000000000",
        ])
        try write(#"{ "steps": [ { "name": "a", "run": "touch a-ran", "retry": { "attempts": 1000000 } } ], "jobs": 1000000 }"#)
        XCTAssertEqual(try run([path, "--jobs", "1000000", "--plain"]).status, 0, "the limits themselves are accepted")
    }

    func testOutputPathsAreCheckedBeforeAnythingRuns() throws {
        try write(oneStep)
        try write("", to: "file")
        let cases: [([String], String)] = [
            (["--trace", "no/such/dir/t.json"], "steps: cannot write the trace to no/such/dir/t.json: \(directory.path)/no/such/dir: No such file or directory"),
            (["--trace", "."], "steps: cannot write the trace to .: Is a directory"),
            (["--graph", "file/g.dot"], "steps: cannot write the graph to file/g.dot: Not a directory"),
            (["--logs", "file/logs"], "steps: cannot create the log directory \(directory.path)/file/logs: Not a directory"),
            (["--logs", "file"], "steps: cannot create the log directory \(directory.path)/file: Not a directory"),
        ]
        for (arguments, message) in cases {
            try assertRefusedBeforeAnythingRuns(arguments) { XCTAssertEqual($0, message, "\(arguments + $1)") }
        }
    }

    func testOutputPathsTheSystemRefusesAreRefusedBeforeAnythingRunsWithItsReason() throws {
        try write(oneStep)
        // Searching and permissions would let these through: only the system can tell.
        try assertRefusedBeforeAnythingRuns(["--trace", "/proc/trace.json"]) {
            XCTAssertEqual($0, "steps: cannot write the trace to /proc/trace.json: No such file or directory", "\($1)")
        }
        try assertRefusedBeforeAnythingRuns(["--logs", "/proc/x"]) {
            XCTAssertEqual($0, "steps: cannot create the log directory /proc/x: No such file or directory", "\($1)")
        }
        // sysfs refuses as it sees fit (as root or not): any of its reasons, but the system's.
        let refusals = ["Permission denied", "Operation not permitted", "Read-only file system"]
        let sysfs: [([String], String)] = [
            (["--trace", "/sys/trace.json"], "steps: cannot write the trace to /sys/trace.json: "),
            (["--graph", "/sys/kernel/graph.dot"], "steps: cannot write the graph to /sys/kernel/graph.dot: "),
            (["--logs", "/sys/steps-logs"], "steps: cannot create the log directory /sys/steps-logs: "),
        ]
        for (arguments, prefix) in sysfs {
            try assertRefusedBeforeAnythingRuns(arguments) { message, mode in
                XCTAssertTrue(refusals.contains { message == prefix + $0 }, "\(arguments + mode): \(message)")
            }
        }
    }

    /// Runs `steps` with `arguments`, with and without `--dry-run`, and checks that it refuses
    /// them (status 2, one line, which `check` is given with the mode) before anything runs.
    private func assertRefusedBeforeAnythingRuns(
        _ arguments: [String], line: UInt = #line, _ check: (String, [String]) -> Void
    ) throws {
        for mode in [[], ["--dry-run"]] {
            let result = try run(["pipeline.json", "--plain"] + arguments + mode)
            XCTAssertEqual(result.status, 2, "\(arguments + mode): \(result.output)", line: line)
            XCTAssertEqual(result.errorLines.count, 1, "\(arguments + mode): \(result.errors)", line: line)
            check(result.errorLines.first ?? "", mode)
            XCTAssertEqual(result.output, "", "nothing ran", line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("a-ran").path), "the step ran", line: line)
        }
    }
}
