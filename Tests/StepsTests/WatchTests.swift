import Foundation
import ProceduresTestSupport
import XCTest

/// `--watch`: the real binary runs, waits, runs again what a source change concerns, stops a
/// run whose sources change under it, and leaves nothing running on Ctrl-C.
final class WatchTests: StepsTestCase {
    /// Runs `steps pipeline.json --watch`, handing `script` (on a thread of its own) the
    /// output so far and the process, once the first output arrived.
    private func watch(
        _ arguments: [String] = [], _ script: @escaping @Sendable (_ output: @Sendable () -> String, _ process: Process) -> Void
    ) throws -> Run {
        let output = LockedBox("")
        let started = LockedBox(false)
        return try run(["pipeline.json", "--watch"] + arguments, timeout: 60) { text, process in
            output.mutate { $0 = text }
            guard started.mutate({ first in defer { first = true }; return !first }) else { return }
            Thread.detachNewThread { script({ output.value }, process) }
        }
    }

    /// Polls (on the script's thread) until `condition` holds; false after 20 s.
    @discardableResult
    private static func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while !condition() {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    private static func count(_ text: String, in output: String) -> Int {
        output.components(separatedBy: text).count - 1
    }

    func testAWatchRunRerunsWhatASourceChangeConcernsForcesOnlyItsFirstRunAndStopsCleanlyOnCtrlC() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("src"), withIntermediateDirectories: true)
        try write("a 1\n", to: "src/a.txt")
        try write("other\n", to: "other.txt")
        try write(#"""
            { "steps": [
              { "name": "build", "sources": ["src/*.txt"], "generates": ["out.txt"], "run": "cat src/*.txt > out.txt; echo build >> ran.txt" },
              { "name": "other", "sources": ["other.txt"], "run": "echo other >> ran.txt" }
            ] }
            """#)
        // Recorded once, so that only --force makes the first watched run run them.
        XCTAssertEqual(try run(["pipeline.json"]).status, 0)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("ran.txt"))
        let directory = self.directory!
        let steps = LockedBox<[String]>([])
        let result = try watch(["--force"]) { output, process in
            // After the first run: an editor's write to a file that is no source changes
            // nothing; then one source changes.
            guard Self.waitFor({ Self.count("for changes (Ctrl-C to stop)", in: output()) == 1 }) else { return }
            try? Data("scratch".utf8).write(to: directory.appendingPathComponent("src/.a.txt.swp"))
            try? Data("a 2\n".utf8).write(to: directory.appendingPathComponent("src/a.txt"))
            guard Self.waitFor({ Self.count("for changes (Ctrl-C to stop)", in: output()) == 2 }) else { return }
            steps.mutate { $0 = (try? String(contentsOf: directory.appendingPathComponent("ran.txt"), encoding: .utf8))?.split(separator: "\n").map(String.init) ?? [] }
            kill(process.processIdentifier, SIGINT)
        }
        XCTAssertEqual(result.status, 130, result.output + result.errors)
        XCTAssertEqual(steps.value.sorted(), ["build", "build", "other"], result.output)
        XCTAssertEqual(steps.value.last, "build")
        XCTAssertEqual(try read("out.txt"), "a 2\n")
        XCTAssertEqual(Self.count("Running 2 steps", in: result.output), 2, "one run for the change, none for the swap file: \(result.output)")
        XCTAssertTrue(result.output.contains("Changed: src/a.txt\n"), result.output)
        XCTAssertTrue(result.output.contains("start other (out of date: forced (--force))"), result.output)
        XCTAssertTrue(result.output.contains("start build (out of date: src/a.txt changed)"), result.output)
        XCTAssertTrue(result.output.contains("= other  up to date"), "--force is for the first run: \(result.output)")
        XCTAssertTrue(result.output.hasSuffix("Stopped watching.\n"), result.output)
    }

    func testAChangeDuringARunStopsItAndRunsAgainAndCtrlCLeavesNothingRunning() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("src"), withIntermediateDirectories: true)
        try write("1\n", to: "src/a.txt")
        // Each run records its shell, then waits for a file that never comes.
        try write(#"""
            { "steps": [ { "name": "slow", "sources": ["src/*.txt"],
              "run": "echo $$ >> slow.pids; n=$(cat src/a.txt); echo start $n >> ran.txt; while [ ! -e never ]; do sleep 0.05; done" } ] }
            """#)
        let directory = self.directory!
        let ran: @Sendable () -> String = { (try? String(contentsOf: directory.appendingPathComponent("ran.txt"), encoding: .utf8)) ?? "" }
        let result = try watch { _, process in
            guard Self.waitFor({ ran().contains("start 1\n") }) else { return }
            try? Data("2\n".utf8).write(to: directory.appendingPathComponent("src/a.txt"))
            guard Self.waitFor({ ran().contains("start 2\n") }) else { return }
            kill(process.processIdentifier, SIGINT)
        }
        XCTAssertEqual(result.status, 130, result.output + result.errors)
        XCTAssertEqual(ran(), "start 1\nstart 2\n")
        XCTAssertTrue(result.output.contains("Sources changed: stopping 1 running step(s), then running again…"), result.output)
        XCTAssertTrue(result.output.contains("Stopped (sources changed) in "), result.output)
        XCTAssertTrue(result.output.contains("Interrupted in "), result.output)
        let pids = try read("slow.pids").split(separator: "\n").compactMap { Int32($0) }
        XCTAssertEqual(pids.count, 2)
        for pid in pids { XCTAssertFalse(Self.isAlive(pid), "process \(pid) outlived steps") }
    }

    func testSIGUSR1ExplainsAWatchRunAfterTheFirst() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("src"), withIntermediateDirectories: true)
        try write("1\n", to: "src/a.txt")
        try write(#"""
            { "steps": [ { "name": "slow", "sources": ["src/*.txt"],
              "run": "n=$(cat src/a.txt); echo start $n >> ran.txt; while [ ! -e never ]; do sleep 0.05; done" } ] }
            """#)
        let directory = self.directory!
        let ran: @Sendable () -> String = { (try? String(contentsOf: directory.appendingPathComponent("ran.txt"), encoding: .utf8)) ?? "" }
        let result = try watch { output, process in
            guard Self.waitFor({ ran().contains("start 1\n") }) else { return }
            try? Data("2\n".utf8).write(to: directory.appendingPathComponent("src/a.txt"))
            guard Self.waitFor({ ran().contains("start 2\n") }) else { return }
            kill(process.processIdentifier, SIGUSR1)
            Self.waitFor({ output().contains("Unfinished steps (1):") })
            kill(process.processIdentifier, SIGINT)
        }
        XCTAssertEqual(result.status, 130, result.output + result.errors)
        XCTAssertEqual(ran(), "start 1\nstart 2\n")
        XCTAssertTrue(result.output.contains("Unfinished steps (1):\n  slow: running"), "the second run heard SIGUSR1: \(result.output)")
    }

    func testWatchingNeedsAStepWithSources() throws {
        try write(#"{ "steps": [ { "name": "a", "run": "true" } ] }"#)
        let result = try run(["pipeline.json", "--watch"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.errors, "steps: --watch: no step has sources to watch (see Documentation/Pipelines.md)\n")
    }
}
