import Foundation
import Procedures
import ProceduresProcess
import ProceduresTesting
import XCTest

/// The live view, driven through a real pseudo-terminal: tmux runs `steps` in a detached
/// session of a known size, and its screen is read back with `capture-pane`.
final class TerminalViewTests: StepsTestCase {
    private var session: String!

    override func tearDownWithError() throws {
        if let session { _ = try? tmux(["kill-session", "-t", session], capturing: false) }
        try super.tearDownWithError()
    }

    /// Runs tmux and returns its output. It runs as a `ProcessProcedure`, not a Foundation
    /// `Process`: starting a session forks the tmux server, which would inherit the descriptors
    /// Foundation watches to learn that its child exited (and, with `capturing`, the output
    /// pipe) and keep them open for as long as the server lives, so waiting for the client
    /// would never end. A `ProcessProcedure`'s child starts with nothing open but its own
    /// standard streams.
    @discardableResult
    private func tmux(_ arguments: [String], capturing: Bool = true) throws -> String {
        let procedure = ProcessProcedure(
            executable: "tmux", arguments: arguments, standardOutput: capturing ? .capture() : .discard,
            standardError: .discard)
        wait(for: procedure, timeout: 20)
        if !procedure.isFinished { procedure.cancel() }
        if let error = procedure.errors.first { throw error }
        return procedure.output?.standardOutputString ?? ""
    }

    private func screen() throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", session]).split(separator: "\n", omittingEmptySubsequences: false)
            .map { String($0).trimmingCharacters(in: .whitespaces) }
    }

    /// Starts `steps pipeline.json ARGUMENTS` in a new 90x30 session; false if tmux is missing.
    private func startSteps(_ arguments: String = "") throws -> Bool {
        guard (try? tmux(["-V"]))?.hasPrefix("tmux") == true else {
            XCTFail("tmux is needed for the terminal view test (apt-get install -y tmux; .ci/run does)")
            return false
        }
        session = "steps-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        let command = "cd '\(directory.path)' && env -u STEPS_TEST_NEVER_SET TERM=xterm-256color '\(Self.binary.path)' pipeline.json \(arguments); echo \"exit=$?\"; sleep 60"
        try tmux(["new-session", "-d", "-s", session, "-x", "90", "-y", "30", command], capturing: false)
        return true
    }

    func testPrefixedLinesScrollAboveTheLiveViewAsTheyCome() throws {
        try write(#"""
            { "steps": [
              { "name": "talker", "run": "echo hello 1; echo hello 2 >&2; while [ ! -e release ]; do sleep 0.05; done; echo bye" },
              { "name": "t", "run": "echo short" }
            ] }
            """#)
        guard try startSteps("--output prefixed") else { return }
        eventually(20, "the lines of the running step on screen") {
            guard let lines = try? screen() else { return false }
            return lines.contains("talker | hello 1") && lines.contains("talker | hello 2")
                && lines.contains { $0.hasPrefix("1/2 done, 1 running") }
        }
        let during = try screen()
        XCTAssertTrue(during.contains("t      | short"), during.joined(separator: "\n"))
        // Each step's name in its own colour (tmux gives the screen's colours back with -e).
        let colored = try tmux(["capture-pane", "-p", "-e", "-t", session])
        XCTAssertTrue(colored.contains("\u{1B}[36mtalker |"), colored.debugDescription)
        XCTAssertTrue(colored.contains("\u{1B}[33mt      |"), colored.debugDescription)
        try write("", to: "release")
        eventually(20, "steps to exit") { (try? screen())?.contains("exit=0") ?? false }
        let after = try screen()
        let bye = try XCTUnwrap(after.firstIndex(of: "talker | bye"), after.joined(separator: "\n"))
        let finished = try XCTUnwrap(after.firstIndex { $0.hasPrefix("✓ talker") }, after.joined(separator: "\n"))
        XCTAssertLessThan(bye, finished, after.joined(separator: "\n"))
    }

    func testAStepsControlCharactersAndInvalidBytesAreShownEscapedOnTheTerminal() throws {
        try assertEscapedOnTheTerminal(mode: "prefixed", line: "talker | esc:\\x1b[31mred\\x1b[0m bad:\\xff\\xfe bell:\\x07 é end")
        try assertEscapedOnTheTerminal(mode: "grouped", line: "| esc:\\x1b[31mred\\x1b[0m bad:\\xff\\xfe bell:\\x07 é end")
    }

    /// Runs a step printing a colour code, bytes that are not UTF-8, a bell and an accented
    /// letter with `--output MODE`, and checks the screen shows `line`, in no colour of the step's.
    private func assertEscapedOnTheTerminal(mode: String, line: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws {
        try write(#"""
            { "steps": [ { "name": "talker", "run": "printf 'esc:\\033[31mred\\033[0m bad:\\377\\376 bell:\\007 \\303\\251 end\\n'" } ] }
            """#)
        if let session { try tmux(["kill-session", "-t", session], capturing: false) }
        guard try startSteps("--output \(mode)") else { return }
        eventually(20, "steps to exit") { (try? screen())?.contains("exit=0") ?? false }
        let after = try screen()
        XCTAssertTrue(after.contains(line), after.joined(separator: "\n"), file: file, line: lineNumber)
        let colored = try tmux(["capture-pane", "-p", "-e", "-t", session])
        XCTAssertFalse(colored.contains("\u{1B}[31mred"), colored.debugDescription, file: file, line: lineNumber)
    }

    func testAStepWaitingOutItsBackoffSaysHowLongBeforeWhichTry() throws {
        try write(#"""
            { "steps": [ { "name": "flaky", "retry": { "attempts": 2, "backoff": 4 }, "run": "[ -e tried ] || { touch tried; exit 1; }" } ] }
            """#)
        guard try startSteps() else { return }
        eventually(20, "the wait on screen") {
            (try? screen())?.contains { $0.range(of: #"^… flaky  \d+\.\d\ds  waiting [0-4]\.\d s before try 2$"#, options: .regularExpression) != nil } ?? false
        }
        let during = try screen()
        XCTAssertTrue(during.contains("↻ flaky  try 1 exit status 1, waiting 4.0 s before try 2"), during.joined(separator: "\n"))
        eventually(20, "steps to exit") { (try? screen())?.contains("exit=0") ?? false }
        XCTAssertTrue(try screen().contains { $0.hasPrefix("✓ flaky") && $0.hasSuffix("(2 tries)") })
    }

    func testTheLiveViewShowsRunningStepsThenEndsWithTheSummary() throws {
        try write(#"""
            { "steps": [
              { "name": "quick", "run": "true" },
              { "name": "long-running", "needs": ["quick"], "run": "while [ ! -e release ]; do sleep 0.05; done" },
              { "name": "flaky", "retry": { "attempts": 2, "backoff": 0 }, "run": "[ -e tried ] || { touch tried; exit 1; }" },
              { "name": "never", "when": { "env": "STEPS_TEST_NEVER_SET" }, "run": "true" }
            ] }
            """#)
        guard try startSteps() else { return }

        // While long-running waits (and once the others have ended: flaky's second try may
        // still run when long-running starts), the view shows it with its elapsed time, under
        // the finished steps.
        eventually(20, "the running step on screen, alone") {
            guard let lines = try? screen() else { return false }
            return lines.contains { $0.range(of: #"^. long-running  \d+\.\d\ds$"#, options: .regularExpression) != nil }
                && lines.contains { $0.hasPrefix("3/4 done, 1 running") }
        }
        let during = try screen()
        XCTAssertTrue(during.contains("✓ quick  " + (during.first { $0.hasPrefix("✓ quick  ") }?.dropFirst(9) ?? "")), during.joined(separator: "\n"))
        XCTAssertTrue(during.contains { $0.hasPrefix("✓ flaky") && $0.hasSuffix("(2 tries)") }, during.joined(separator: "\n"))
        XCTAssertTrue(during.contains { $0.hasPrefix("- never  skipped: $STEPS_TEST_NEVER_SET is not set") }, during.joined(separator: "\n"))
        XCTAssertTrue(during.contains { $0.hasPrefix("3/4 done, 1 running") }, during.joined(separator: "\n"))

        try write("", to: "release")
        eventually(20, "steps to exit") { (try? screen())?.contains("exit=0") ?? false }
        var lines = try screen()
        while lines.last?.isEmpty == true { lines.removeLast() }
        let text = lines.joined(separator: "\n")
        XCTAssertEqual(lines.last, "exit=0", text)
        let header = try XCTUnwrap(lines.lastIndex { $0.hasPrefix("step  ") }, text)
        let summary = Array(lines[header...])
        XCTAssertEqual(summary.count, 8, text)
        XCTAssertTrue(summary[1].hasPrefix("quick         ✓ ok"), text)
        XCTAssertTrue(summary[2].hasPrefix("long-running  ✓ ok"), text)
        XCTAssertTrue(summary[3].hasPrefix("flaky         ✓ ok                   2"), text)
        XCTAssertTrue(summary[4].hasPrefix("never         - skipped"), text)
        XCTAssertTrue(summary[5].hasPrefix("Succeeded in "), text)
        XCTAssertTrue(summary[6].hasPrefix("Logs: "), text)
        XCTAssertFalse(lines.contains { $0.contains(" done, ") && $0.contains(" running, ") }, "the live block is gone: \(text)")
    }

    /// The running line of a step at 2/5: spinner, name, elapsed time, bar.
    private static let downloadBar = #"^. download  \d+\.\d\ds  \[████░░░░░░\] 40%$"#

    func testTheLiveViewShowsProgressBarsWaitingReasonsAndAnEstimate() throws {
        try write(#"""
            { "steps": [
              { "name": "quick", "run": "true" },
              { "name": "download", "run": "echo '::progress 2/5'; while [ ! -e release ]; do sleep 0.05; done" },
              { "name": "migrate-db", "exclusive": ["database"], "run": "while [ ! -e release ]; do sleep 0.05; done" },
              { "name": "seed-db", "exclusive": ["database"], "needs": ["quick"], "run": "true" }
            ] }
            """#)
        guard try startSteps("--jobs 4") else { return }
        eventually(20, "a progress bar, a waiting reason and an estimate on screen") {
            guard let lines = try? screen() else { return false }
            return lines.contains { $0.range(of: Self.downloadBar, options: .regularExpression) != nil }
                && lines.contains("· seed-db  waiting for database, held by migrate-db")
                && lines.contains { $0.range(of: #"^1/4 done, 2 running, \d+\.\d\ds, about \d+\.\d\ds left$"#, options: .regularExpression) != nil }
        }
        let during = try screen()
        print(during.joined(separator: "\n"))
        XCTAssertTrue(during.contains { $0.range(of: Self.downloadBar, options: .regularExpression) != nil }, during.joined(separator: "\n"))
        XCTAssertFalse(during.contains { $0.contains("::progress") }, during.joined(separator: "\n"))
        try write("", to: "release")
        eventually(20, "steps to exit") { (try? screen())?.contains("exit=0") ?? false }
    }
}
