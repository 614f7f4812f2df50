import Foundation
import ProceduresTestSupport
import XCTest

/// What steps print reaches the terminal as `--output` says (here: a pipe, so plain lines;
/// TerminalViewTests drives a terminal), and the logs keep both streams apart.
final class OutputModeTests: StepsTestCase {
    /// 30 numbered lines, the even ones on standard error, then exit 1. (The two streams are
    /// two pipes: their lines keep their order within a stream, not across the two.)
    private let failing = #"{ "name": "broken", "run": "for i in $(seq 1 30); do if [ $((i % 2)) = 0 ]; then echo line $i >&2; else echo line $i; fi; done; exit 1" }"#
    /// The same lines, all on standard output.
    private let failingOnOneStream = #"{ "name": "broken", "run": "for i in $(seq 1 30); do echo line $i; done; exit 1" }"#
    private let quiet = #"{ "name": "fine", "run": "echo fine says hello" }"#

    private func lines(_ output: String, after marker: String) -> [String] {
        let all = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = all.firstIndex(where: { $0.contains(marker) }) else { return [] }
        return Array(all[(start + 1)...].prefix { $0.hasPrefix("    ") })
    }

    func testOffATerminalTheDefaultShowsAFailedStepsOutputInFullAndNothingOfTheOthers() throws {
        try write(#"{ "steps": [ \#(failing), \#(quiet) ] }"#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        let shown = lines(result.output, after: "✗ broken")
        XCTAssertEqual(shown.first, "    output (\(directory.path)/.steps/logs/broken.log, broken.err.log):")
        XCTAssertEqual(shown.count, 31, result.output)
        for parity in [0, 1] {
            let stream = (1...30).filter { $0 % 2 == parity }.map { "    | line \($0)" }
            XCTAssertEqual(shown.filter { stream.contains($0) }, stream, "each stream in its order: \(result.output)")
        }
        XCTAssertFalse(result.output.contains("fine says hello"), result.output)
    }

    func testQuietShowsTheLastLinesOfAFailedStepOnly() throws {
        try write(#"{ "steps": [ \#(failingOnOneStream), \#(quiet) ] }"#)
        let result = try run(["pipeline.json", "--output", "quiet"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        let shown = lines(result.output, after: "✗ broken")
        XCTAssertEqual(shown.first, "    last lines of \(directory.path)/.steps/logs/broken.log, broken.err.log:")
        XCTAssertEqual(Array(shown.dropFirst()), (21...30).map { "    | line \($0)" }, result.output)
        XCTAssertFalse(result.output.contains("fine says hello"), result.output)
    }

    func testGroupedShowsEachStepsLinesTogetherWhenItEnds() throws {
        // The two steps print in turns (each waits for the other's last line), so their
        // lines arrive interleaved; grouped, each step's lines are together.
        try write(#"""
            { "steps": [
              { "name": "ping", "run": "for i in 1 2 3; do echo ping $i; touch ping-$i; while [ ! -e pong-$i ]; do sleep 0.01; done; done" },
              { "name": "pong", "run": "for i in 1 2 3; do while [ ! -e ping-$i ]; do sleep 0.01; done; echo pong $i; touch pong-$i; done" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--output=grouped", "--jobs", "2"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertEqual(lines(result.output, after: "✓ ping"), ["    | ping 1", "    | ping 2", "    | ping 3"], result.output)
        XCTAssertEqual(lines(result.output, after: "✓ pong"), ["    | pong 1", "    | pong 2", "    | pong 3"], result.output)
    }

    func testPrefixedShowsEachLineAsItComesUnderItsStepsName() throws {
        try write(#"""
            { "steps": [
              { "name": "waiter", "run": "echo ready; while [ ! -e release ]; do sleep 0.02; done; echo released >&2" },
              { "name": "x", "needs": ["waiter"], "run": "echo after" }
            ] }
            """#)
        let directory = self.directory!
        let released = LockedBox(false)
        let result = try run(["pipeline.json", "--output", "prefixed"]) { output, _ in
            // The first line is shown while the step is still running: it is what releases it.
            if output.contains("waiter | ready\n"), released.mutate({ first in defer { first = true }; return !first }) {
                _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("release").path, contents: nil)
            }
        }
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertTrue(released.value, result.output)
        let all = result.output.split(separator: "\n").map(String.init)
        let order = ["waiter | ready", "waiter | released", "x      | after"].map { line in all.firstIndex { $0 == line } }
        XCTAssertFalse(order.contains(nil), result.output)
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted(), result.output)
        let finished = try XCTUnwrap(all.firstIndex { $0.contains("✓ waiter") })
        XCTAssertLessThan(order[1]!, finished, "a step's lines come before the line that says it ended")
        XCTAssertFalse(result.output.contains("    | ready"), "nothing is shown twice")
    }

    func testStandardOutputAndStandardErrorStayApartInTheLogs() throws {
        try write(#"{ "steps": [ \#(failing) ] }"#)
        _ = try run(["pipeline.json", "--output", "quiet"])
        XCTAssertEqual(try read(".steps/logs/broken.log"), (1...30).filter { $0 % 2 == 1 }.map { "line \($0)\n" }.joined())
        XCTAssertEqual(try read(".steps/logs/broken.err.log"), (1...30).filter { $0 % 2 == 0 }.map { "line \($0)\n" }.joined())
    }

    func testTheLogsKeepEveryByteAStepWrites() throws {
        // Every byte value on both streams, then a last line without a newline; and a second
        // try, whose marker starts a line of its own.
        let every = (0...255).map { String(format: "\\\\%03o", $0) }.joined()
        try write(#"""
            { "steps": [ { "name": "bytes", "retry": { "attempts": 2 },
              "run": "printf '\#(every)'; printf '\#(every)' >&2; printf 'last'; [ -e tried ] || { touch tried; exit 1; }" } ] }
            """#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let bytes = Data(0...255)
        let marker = Data("\n── steps: try 2 of 2 ──\n".utf8)
        let log = try Data(contentsOf: directory.appendingPathComponent(".steps/logs/bytes.log"))
        XCTAssertEqual(log, bytes + Data("last".utf8) + marker + bytes + Data("last".utf8), "the log holds the bytes written, byte for byte")
        let errors = try Data(contentsOf: directory.appendingPathComponent(".steps/logs/bytes.err.log"))
        XCTAssertEqual(errors, bytes + marker + bytes)
    }

    func testOffATerminalPrefixedAndGroupedOutputPassLinesOnAsPrinted() throws {
        // A CI log may render colours: off a terminal, a step's control characters are its own.
        try write(#"{ "steps": [ { "name": "colour", "run": "printf 'esc:\\033[31mred\\033[0m\\n'" } ] }"#)
        for mode in ["prefixed", "grouped"] {
            let result = try run(["pipeline.json", "--output", mode])
            XCTAssertEqual(result.status, 0, result.output + result.errors)
            XCTAssertTrue(result.output.contains("esc:\u{1B}[31mred\u{1B}[0m\n"), "\(mode): \(result.output.debugDescription)")
        }
    }

    func testAnUnknownModeIsABadInvocation() throws {
        try write(#"{ "steps": [ \#(quiet) ] }"#)
        let result = try run(["pipeline.json", "--output", "loud"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.errors, "steps: --output needs one of prefixed, grouped, failed, quiet, not 'loud' (see steps --help)\n")
    }
}
