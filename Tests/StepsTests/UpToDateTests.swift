import Foundation
import XCTest

/// Steps with `sources` are skipped while nothing they depend on changed since their last
/// successful run: checked on what the steps themselves record (each appends its name to
/// ran.txt when it runs), run after run of the real binary.
final class UpToDateTests: StepsTestCase {
    /// The names of the steps that ran since the last call, in the order they ran.
    private func ran() throws -> [String] {
        let url = directory.appendingPathComponent("ran.txt")
        defer { try? FileManager.default.removeItem(at: url) }
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try read("ran.txt").split(separator: "\n").map(String.init)
    }

    private func runPipeline(_ arguments: [String] = [], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> Run {
        let result = try run(["pipeline.json"] + arguments)
        XCTAssertEqual(result.status, status, result.output + result.errors, file: file, line: line)
        return result
    }

    private func record(_ name: String) -> String { "echo \(name) >> ran.txt" }

    /// a <- c, b <- d: each step reads its own input file.
    private func writeTwoChains() throws {
        for name in ["a", "b", "c", "d"] { try write("\(name) 1\n", to: "\(name).txt") }
        try write(#"""
            { "steps": [
              { "name": "a", "sources": ["a.txt"], "run": "\#(record("a"))" },
              { "name": "b", "sources": ["b.txt"], "run": "\#(record("b"))" },
              { "name": "c", "needs": ["a"], "sources": ["c.txt"], "run": "\#(record("c"))" },
              { "name": "d", "needs": ["b"], "sources": ["d.txt"], "run": "\#(record("d"))" }
            ] }
            """#)
    }

    func testASecondRunSkipsEveryStepWhoseSourcesAreUnchanged() throws {
        try writeTwoChains()
        _ = try runPipeline()
        XCTAssertEqual(Set(try ran()), ["a", "b", "c", "d"])
        let second = try runPipeline()
        XCTAssertEqual(try ran(), [], second.output)
        for name in ["a", "b", "c", "d"] { XCTAssertTrue(second.output.contains("= \(name)  up to date"), second.output) }
        XCTAssertTrue(second.output.contains("Succeeded in "), second.output)
        XCTAssertTrue(second.output.contains(": 4 up to date."), "the summary counts them apart: \(second.output)")
        XCTAssertTrue(second.output.contains("a     = up to date"), second.output)
    }

    func testChangingOneSourceRerunsExactlyThatStepAndTheStepsThatNeedIt() throws {
        try writeTwoChains()
        _ = try runPipeline()
        _ = try ran()
        try write("a 2\n", to: "a.txt")
        let result = try runPipeline()
        XCTAssertEqual(try ran(), ["a", "c"], result.output)
        XCTAssertTrue(result.output.contains("start a (out of date: a.txt changed)"), result.output)
        XCTAssertTrue(result.output.contains("start c (out of date: 'a', which it needs, ran or changed)"), result.output)
        XCTAssertTrue(result.output.contains("= b  up to date"), result.output)
        XCTAssertTrue(result.output.contains("= d  up to date"), result.output)

        // A source that is only touched (same content) changes nothing: content, not time, counts.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: directory.appendingPathComponent("b.txt").path)
        _ = try runPipeline()
        XCTAssertEqual(try ran(), [])
    }

    func testAFailedStepIsNotRecordedAsUpToDate() throws {
        try write("1\n", to: "input.txt")
        try write("", to: "fail")
        try write(#"""
            { "steps": [ { "name": "build", "sources": ["input.txt"], "run": "\#(record("build")); [ ! -e fail ]" } ] }
            """#)
        _ = try runPipeline(status: 1)
        XCTAssertEqual(try ran(), ["build"])
        try FileManager.default.removeItem(at: directory.appendingPathComponent("fail"))
        let second = try runPipeline()
        XCTAssertEqual(try ran(), ["build"], "a failure recorded nothing: the same sources run again")
        XCTAssertTrue(second.output.contains("start build (out of date: no successful run recorded)"), second.output)
        _ = try runPipeline()
        XCTAssertEqual(try ran(), [], "a success is recorded")

        // A run that fails after a success forgets it: going back to the sources of that
        // success runs the step again (the failed run may have left its outputs half made).
        try write("2\n", to: "input.txt")
        try write("", to: "fail")
        _ = try runPipeline(status: 1)
        XCTAssertEqual(try ran(), ["build"])
        try write("1\n", to: "input.txt")
        try FileManager.default.removeItem(at: directory.appendingPathComponent("fail"))
        _ = try runPipeline()
        XCTAssertEqual(try ran(), ["build"])
    }

    func testACorruptOrForeignStateFileRunsEverythingWithANoteAndIsWrittenAnew() throws {
        try writeTwoChains()
        _ = try runPipeline()
        _ = try ran()
        let state = directory.appendingPathComponent(".steps/pipeline.json.state")
        XCTAssertTrue(FileManager.default.fileExists(atPath: state.path))
        for (content, note) in [
            ("steps-state 1\nstep\ta\tnot-a-hash\n", "is corrupt (line 2): every step with sources runs"),
            ("steps-state 99\n", "was written by another version of steps (99, this one reads 1)"),
            ("\u{0}\u{1}garbage", "is not a steps state file"),
            ("", "is empty"),
        ] {
            try Data(content.utf8).write(to: state)
            let result = try runPipeline()
            XCTAssertEqual(Set(try ran()), ["a", "b", "c", "d"], "after \(content.debugDescription): \(result.output)")
            XCTAssertTrue(result.output.contains(state.path + " " + note), result.output)
            _ = try runPipeline()
            XCTAssertEqual(try ran(), [], "the state was written anew after \(content.debugDescription)")
        }
    }

    func testForceRunsEveryStepAndForceStepRunsThatStep() throws {
        try writeTwoChains()
        _ = try runPipeline()
        _ = try ran()
        let forced = try runPipeline(["--force"])
        XCTAssertEqual(Set(try ran()), ["a", "b", "c", "d"])
        XCTAssertTrue(forced.output.contains("start a (out of date: forced (--force))"), forced.output)
        _ = try runPipeline(["--force", "b"])
        XCTAssertEqual(try ran(), ["b"], "what needs b is up to date: b's inputs did not change")
        _ = try runPipeline(["--force=c", "--force", "a"])
        XCTAssertEqual(Set(try ran()), ["a", "c"])
        _ = try runPipeline()
        XCTAssertEqual(try ran(), [], "forcing keeps the records")

        let unknown = try run(["pipeline.json", "--force", "bb"])
        XCTAssertEqual(unknown.status, 2, unknown.output + unknown.errors)
        XCTAssertEqual(unknown.errors, "steps: --force bb: no step is named 'bb' (did you mean 'b'?) (see steps --help)\n")
        XCTAssertEqual(try ran(), [])
    }

    func testAMissingGeneratedFileRerunsTheStep() throws {
        try write("source\n", to: "input.txt")
        try write(#"""
            { "steps": [
              { "name": "make", "sources": ["input.txt"], "generates": ["out/result.txt", "out/*.log"],
                "run": "\#(record("make")); mkdir -p out && cp input.txt out/result.txt && echo done > out/make.log" },
              { "name": "setup", "sources": [], "generates": ["cache"], "run": "\#(record("setup")); mkdir -p cache" }
            ] }
            """#)
        _ = try runPipeline()
        XCTAssertEqual(Set(try ran()), ["make", "setup"])
        _ = try runPipeline()
        XCTAssertEqual(try ran(), [])
        try FileManager.default.removeItem(at: directory.appendingPathComponent("out/result.txt"))
        let result = try runPipeline()
        XCTAssertEqual(try ran(), ["make"])
        XCTAssertTrue(result.output.contains("start make (out of date: out/result.txt is missing)"), result.output)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("out/make.log"))
        _ = try runPipeline()
        XCTAssertEqual(try ran(), ["make"], "a wildcard in generates needs one file at least")
        try FileManager.default.removeItem(at: directory.appendingPathComponent("cache"))
        _ = try runPipeline()
        XCTAssertEqual(try ran(), ["setup"], "sources: [] runs only while what it generates is missing")
    }

    func testAStepWithoutSourcesAlwaysRunsAndWhatNeedsItIsNeverUpToDate() throws {
        try write("x\n", to: "input.txt")
        try write(#"""
            { "steps": [
              { "name": "always", "run": "\#(record("always"))" },
              { "name": "after", "needs": ["always"], "sources": ["input.txt"], "run": "\#(record("after"))" },
              { "name": "skipped", "when": { "env": "STEPS_TEST_NEVER_SET" }, "run": "\#(record("skipped"))" },
              { "name": "after-skipped", "needs": ["skipped"], "sources": ["input.txt"], "run": "\#(record("after-skipped"))" }
            ] }
            """#)
        _ = try runPipeline()
        XCTAssertEqual(Set(try ran()), ["always", "after", "after-skipped"])
        let second = try runPipeline()
        XCTAssertEqual(Set(try ran()), ["always", "after"], "a step skipped by its condition both times changes nothing")
        XCTAssertTrue(second.output.contains("- skipped  skipped: $STEPS_TEST_NEVER_SET is not set"), "skipped and up to date read apart: \(second.output)")
        XCTAssertTrue(second.output.contains("= after-skipped  up to date"), second.output)
    }

    func testCommandEnvironmentAndDirectoryArePartOfTheFingerprint() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try write("x\n", to: "sub/input.txt")
        func pipeline(command: String = "true", env: String = "1", cwd: String = "sub") -> String {
            #"{ "env": { "MODE": "\#(env)" }, "steps": [ { "name": "s", "cwd": "\#(cwd)", "sources": ["input.txt", "../other/**"], "run": "echo s >> ../ran.txt; \#(command)" } ] }"#
        }
        try write(pipeline())
        _ = try runPipeline()
        XCTAssertEqual(try ran(), ["s"])
        _ = try runPipeline()
        XCTAssertEqual(try ran(), [], "sources are relative to the step's cwd")
        for (changed, reason) in [(pipeline(command: "true "), "its command changed"), (pipeline(command: "true ", env: "2"), "its env changed")] {
            try write(changed)
            let result = try runPipeline()
            XCTAssertEqual(try ran(), ["s"], reason)
            XCTAssertTrue(result.output.contains("(out of date: \(reason))"), result.output)
        }
        // A file appearing where a pattern looks counts as a change.
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("other"), withIntermediateDirectories: true)
        try write("new\n", to: "other/new.txt")
        try write(pipeline(command: "true ", env: "2"))
        let result = try runPipeline()
        XCTAssertEqual(try ran(), ["s"])
        XCTAssertTrue(result.output.contains("(out of date: ../other/new.txt changed)"), result.output)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub2"), withIntermediateDirectories: true)
        try write("x\n", to: "sub2/input.txt")
        try write(pipeline(command: "true ", env: "2", cwd: "sub2"))
        XCTAssertTrue(try runPipeline().output.contains("(out of date: its cwd changed)"))
        XCTAssertEqual(try ran(), ["s"])
    }

    func testBadPatternsAreRefusedBeforeAnythingRuns() throws {
        try write(#"""
            { "steps": [
              { "name": "a", "sources": ["src/[ab.swift", ""], "run": "true" },
              { "name": "b", "generates": ["out"], "run": "true" },
              { "name": "c", "sources": ["!tests/**"], "run": "true" }
            ] }
            """#)
        let result = try run(["pipeline.json"])
        XCTAssertEqual(result.status, 2, result.output + result.errors)
        XCTAssertEqual(result.errorLines.map { $0.replacingOccurrences(of: directory.path + "/", with: "") }, [
            "pipeline.json:2:30: step 'a': field 'sources': 'src/[ab.swift': '[' without a closing ']' in '[ab.swift'",
            "pipeline.json:2:47: step 'a': field 'sources': '': the pattern is empty",
            #"pipeline.json:3:31: step 'b': field 'generates' needs 'sources' (a step without sources always runs; give "sources": [] to run it only while what it generates is missing)"#,
            "pipeline.json:4:29: step 'c': field 'sources': only exclusions ('!'); give the patterns they take files from",
        ])
    }
}
