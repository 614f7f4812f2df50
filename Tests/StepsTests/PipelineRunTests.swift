import Foundation
import XCTest

/// Running pipelines: order, retries, timeouts, exclusivity, conditions and failure handling,
/// checked on what the steps themselves record (their own clocks), not only on what `steps` prints.
final class PipelineRunTests: StepsTestCase {
    /// A shell command that records its start and end (nanoseconds) in events.txt around a pause.
    private func timed(_ name: String, _ seconds: Double = 0.2) -> String {
        "echo \\\"start \(name) $(date +%s%N)\\\" >> events.txt; sleep \(seconds); echo \\\"end \(name) $(date +%s%N)\\\" >> events.txt"
    }

    /// Each recorded step's (start, end) in nanoseconds.
    private func intervals() throws -> [String: (start: UInt64, end: UInt64)] {
        var starts: [String: UInt64] = [:]
        var result: [String: (UInt64, UInt64)] = [:]
        for line in try read("events.txt").split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 3, let time = UInt64(words[2]) else { continue }
            if words[0] == "start" { starts[String(words[1])] = time }
            if words[0] == "end", let start = starts[String(words[1])] { result[String(words[1])] = (start, time) }
        }
        return result
    }

    func testStepsStartOnlyAfterEveryStepTheyNeedAndIndependentOnesOverlap() throws {
        try write("""
            { "steps": [
              { "name": "root", "run": "\(timed("root", 0.1))" },
              { "name": "left", "needs": ["root"], "run": "\(timed("left", 0.4))" },
              { "name": "right", "needs": ["root"], "run": "\(timed("right", 0.4))" },
              { "name": "join", "needs": ["left", "right"], "run": "\(timed("join", 0.1))" }
            ] }
            """)
        let result = try run(["pipeline.json", "--jobs", "4"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let times = try intervals()
        XCTAssertEqual(times.count, 4, result.output)
        let (root, left, right, join) = (times["root"]!, times["left"]!, times["right"]!, times["join"]!)
        XCTAssertLessThanOrEqual(root.end, left.start)
        XCTAssertLessThanOrEqual(root.end, right.start)
        XCTAssertLessThanOrEqual(max(left.end, right.end), join.start)
        XCTAssertLessThan(max(left.start, right.start), min(left.end, right.end), "the two sides of the diamond ran at the same time")
        XCTAssertTrue(result.output.contains("Succeeded in"), result.output)
    }

    func testJobsBoundsHowManyStepsRunAtOnce() throws {
        let names = (1...6).map { "s\($0)" }
        try write(#"{ "steps": ["# + names.map { #"{ "name": "\#($0)", "run": "\#(timed($0, 0.15))" }"# }.joined(separator: ",") + "] }")
        let result = try run(["pipeline.json", "--jobs", "2"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let times = try intervals()
        XCTAssertEqual(times.count, 6)
        // The most steps running at any instant: sweep the starts (+1) and ends (-1) in time order.
        let events = times.values.flatMap { [($0.start, 1), ($0.end, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var running = 0
        var most = 0
        for (_, change) in events {
            running += change
            most = max(most, running)
        }
        XCTAssertEqual(most, 2, "at --jobs 2, two steps and never more run at once")
    }

    func testAFlakyStepIsRetriedAfterItsBackoffAndSucceeds() throws {
        let flaky = #"n=$(cat tries 2>/dev/null || echo 0); n=$((n + 1)); echo $n > tries; date +%s%N >> try-times; echo try $n; [ $n -ge 3 ]"#
        try write(#"{ "steps": [ { "name": "flaky", "retry": { "attempts": 4, "backoff": 0.2 }, "run": "\#(flaky)" } ] }"#)
        let result = try run(["pipeline.json", "--plain"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertEqual(try read("tries"), "3\n")
        let times = try read("try-times").split(separator: "\n").compactMap { UInt64($0) }
        XCTAssertEqual(times.count, 3)
        // Back-off 0.2 s, then doubled: 0.4 s.
        XCTAssertGreaterThanOrEqual(Double(times[1] - times[0]) / 1e9, 0.2)
        XCTAssertGreaterThanOrEqual(Double(times[2] - times[1]) / 1e9, 0.4)
        XCTAssertTrue(result.output.contains("retry flaky: try 1 exit status 1; waiting 0.2 s before try 2"), result.output)
        XCTAssertTrue(result.output.contains("retry flaky: try 2 exit status 1; waiting 0.4 s before try 3"), result.output)
        XCTAssertTrue(result.output.contains("✓ flaky"), result.output)
        XCTAssertTrue(result.output.contains("(3 tries)"), result.output)
    }

    func testAStepWaitingOutItsBackoffGivesItsJobSlotToAnotherStep() throws {
        // One job slot: the second step runs while the first waits between its tries, not after.
        try write(#"""
            { "steps": [
              { "name": "flaky", "retry": { "attempts": 2, "backoff": 2 }, "run": "date +%s%N >> try-times; exit 1" },
              { "name": "other", "run": "date +%s%N > other-time" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--jobs", "1", "--plain"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        let tries = try read("try-times").split(separator: "\n").compactMap { UInt64($0) }
        let other = try XCTUnwrap(UInt64(try read("other-time").trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(tries.count, 2)
        guard tries.count == 2 else { return }
        XCTAssertGreaterThan(other, tries[0], "the flaky step had the slot first")
        XCTAssertLessThan(other, tries[1], "the other step ran during the back-off, not after it")
    }

    func testAStepOutOfTriesFailsThePipelineShowsItsLogTailAndSkipsWhatNeedsIt() throws {
        try write(#"""
            { "steps": [
              { "name": "broken", "retry": { "attempts": 2, "backoff": 0 }, "run": "echo first line; echo 'compiler says no' >&2; exit 3" },
              { "name": "after", "needs": ["broken"], "run": "touch after-ran" },
              { "name": "later", "needs": ["after"], "run": "touch later-ran" },
              { "name": "independent", "run": "touch independent-ran" }
            ] }
            """#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        XCTAssertTrue(result.output.contains("✗ broken"), result.output)
        XCTAssertTrue(result.output.contains("exit status 3"), result.output)
        XCTAssertTrue(result.output.contains("    | first line\n"), "the tail of the log is shown: \(result.output)")
        XCTAssertTrue(result.output.contains("    | compiler says no\n"), result.output)
        XCTAssertTrue(result.output.contains("skipped: needs 'broken', which failed"), result.output)
        XCTAssertTrue(result.output.contains("skipped: needs 'after', which was skipped"), result.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("after-ran").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("later-ran").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("independent-ran").path), "a failure does not stop unrelated steps")
        XCTAssertTrue(result.output.contains("Failed in"), result.output)
        XCTAssertEqual(try read(".steps/logs/broken.log"), "first line\n── steps: try 2 of 2 ──\nfirst line\n", "every try's output is kept")
        XCTAssertEqual(try read(".steps/logs/broken.err.log"), "compiler says no\n── steps: try 2 of 2 ──\ncompiler says no\n", "standard error apart")
    }

    func testContinueOnErrorLetsThePipelineSucceed() throws {
        try write(#"""
            { "steps": [
              { "name": "optional", "continueOnError": true, "run": "exit 1" },
              { "name": "after", "needs": ["optional"], "run": "touch after-ran" }
            ] }
            """#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertTrue(result.output.contains("! optional"), result.output)
        XCTAssertTrue(result.output.contains("continuing: continueOnError"), result.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("after-ran").path))
    }

    func testATryThatOutlivesItsTimeoutIsStoppedWithItsChildrenAndRetried() throws {
        // The first try starts a background sleep (same process group) and hangs; the second succeeds.
        let command = #"if [ ! -e hung-once ]; then touch hung-once; sleep 30 & echo $! > background.pid; echo $$ > shell.pid; wait; fi; echo fine"#
        try write(#"{ "steps": [ { "name": "hangs-once", "timeout": 0.5, "retry": { "attempts": 2, "backoff": 0 }, "run": "\#(command)" } ] }"#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertLessThan(result.seconds, 10, "the 30 s sleep was stopped")
        XCTAssertTrue(result.output.contains("try 1 timed out after 0.5s"), result.output)
        for file in ["shell.pid", "background.pid"] {
            let pid = Int32(try read(file).trimmingCharacters(in: .whitespacesAndNewlines))!
            XCTAssertFalse(Self.isAlive(pid), "\(file) (\(pid)) was left running")
        }
    }

    func testATimeoutOnTheLastTryFailsTheStep() throws {
        try write(#"{ "steps": [ { "name": "slow", "timeout": 0.3, "run": "sleep 30" } ] }"#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        XCTAssertTrue(result.output.contains("✗ slow"), result.output)
        XCTAssertTrue(result.output.contains("timed out after 0.3s"), result.output)
        XCTAssertLessThan(result.seconds, 10)
    }

    func testStepsSharingAnExclusiveCategoryNeverOverlap() throws {
        let steps = (1...5).map { index in
            // Each also holds a category of its own: holding several at once is all-or-nothing.
            #"{ "name": "db\#(index)", "exclusive": ["disk\#(index)", "database"], "run": "\#(timed("db\(index)", 0.15))" }"#
        }
        let unrelated = #"{ "name": "free", "run": "\#(timed("free", 0.3))" }"#
        try write(#"{ "steps": ["# + (steps + [unrelated]).joined(separator: ",") + "] }")
        let result = try run(["pipeline.json", "--jobs", "6"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let times = try intervals()
        let exclusive = times.filter { $0.key.hasPrefix("db") }.values.sorted { $0.start < $1.start }
        XCTAssertEqual(exclusive.count, 5)
        for (earlier, later) in zip(exclusive, exclusive.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.end, later.start, "two steps of the 'database' category overlapped")
        }
        let free = times["free"]!
        XCTAssertTrue(exclusive.contains { $0.start < free.end && free.start < $0.end }, "a step outside the category runs alongside")
    }

    func testConditionsSkipStepsAndASkippedStepCountsAsDoneForWhatNeedsIt() throws {
        try write(#"""
            { "steps": [
              { "name": "probe", "run": "echo 'platform: linux-x86_64'" },
              { "name": "has-file", "when": { "exists": "marker" }, "run": "touch has-file-ran" },
              { "name": "no-file", "when": { "exists": "missing" }, "run": "touch no-file-ran" },
              { "name": "env-set", "when": { "env": "STEPS_TEST_FLAG" }, "run": "touch env-set-ran" },
              { "name": "env-unset", "when": { "env": "STEPS_TEST_UNSET" }, "run": "touch env-unset-ran" },
              { "name": "matches", "when": { "output": "probe", "matches": "linux-[a-z0-9_]+" }, "run": "touch matches-ran" },
              { "name": "no-match", "when": { "output": "probe", "matches": "^windows" }, "run": "touch no-match-ran" },
              { "name": "after-skipped", "needs": ["no-file", "env-unset", "no-match"], "run": "touch after-skipped-ran" }
            ] }
            """#)
        try write("", to: "marker")
        let result = try run(["pipeline.json"], environment: ["STEPS_TEST_FLAG": "1", "STEPS_TEST_UNSET": ""])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        func ran(_ name: String) -> Bool { FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(name)-ran").path) }
        XCTAssertTrue(ran("has-file"))
        XCTAssertFalse(ran("no-file"))
        XCTAssertTrue(ran("env-set"))
        XCTAssertFalse(ran("env-unset"), "an empty variable counts as not set")
        XCTAssertTrue(ran("matches"))
        XCTAssertFalse(ran("no-match"))
        XCTAssertTrue(ran("after-skipped"))
        XCTAssertTrue(result.output.contains("skipped: missing does not exist"), result.output)
        XCTAssertTrue(result.output.contains("skipped: $STEPS_TEST_UNSET is not set"), result.output)
        XCTAssertTrue(result.output.contains("skipped: the output of probe does not match /^windows/"), result.output)
    }

    func testAStepSkippedByItsConditionNeverWaitsForItsExclusiveCategories() throws {
        // "holder" takes the category and keeps it until "release" exists; "skipped" shares the
        // category, is checked only once "holder" holds it, and its condition does not hold;
        // "releaser" needs "skipped". If skipping waited for the category, nothing would move.
        try write(#"""
            { "steps": [
              { "name": "holder", "exclusive": ["db"], "run": "touch holding; while [ ! -e release ]; do sleep 0.05; done" },
              { "name": "wait-for-holder", "run": "while [ ! -e holding ]; do sleep 0.05; done" },
              { "name": "skipped", "needs": ["wait-for-holder"], "exclusive": ["db"], "when": { "exists": "missing" }, "run": "touch skipped-ran" },
              { "name": "releaser", "needs": ["skipped"], "run": "touch release" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--jobs", "4"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("skipped-ran").path))
        XCTAssertTrue(result.output.contains("skipped: missing does not exist"), result.output)
    }

    func testEnvironmentAndWorkingDirectoryAndArgv() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try write(#"""
            { "env": { "GREETING": "hello", "WHO": "pipeline" },
              "steps": [
                { "name": "shell", "env": { "WHO": "step" }, "cwd": "sub", "run": "echo \"$GREETING $WHO\" > out.txt; pwd >> out.txt" },
                { "name": "program", "argv": ["touch", "made by argv"] }
              ] }
            """#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 0, result.output + result.errors)
        let resolvedSub = directory.appendingPathComponent("sub").resolvingSymlinksInPath().path
        XCTAssertEqual(try read("sub/out.txt"), "hello step\n\(resolvedSub)\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("made by argv").path), "argv words are not split by a shell")
    }

    func testAMissingProgramFailsClearly() throws {
        try write(#"{ "steps": [ { "name": "typo", "argv": ["no-such-program-anywhere", "x"] } ] }"#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 1, result.output + result.errors)
        XCTAssertTrue(result.output.contains("cannot start: no such program: no-such-program-anywhere"), result.output)
    }
}
