import Foundation
import XCTest

/// Whatever the bytes of a pipeline file, `steps` does not crash: text it cannot read as a
/// pipeline (too deep, not UTF-8, half a surrogate pair, a number out of range, a directory)
/// gets exit status 2 and a plain message that says where; and every problem of one kind is
/// reported in one run, in the order of the file.
final class PipelineTextErrorTests: StepsTestCase {
    /// Runs `steps --dry-run` on `bytes` and returns its error lines (the path shortened to
    /// pipeline.json), checking the status is 2 and that the plan was not printed.
    private func problems(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let url = directory.appendingPathComponent("pipeline.json")
        try Data(bytes).write(to: url)
        let result = try run([url.path, "--dry-run"])
        XCTAssertEqual(result.status, 2, result.output + result.errors, file: file, line: line)
        XCTAssertEqual(result.output, "", "nothing else is printed", file: file, line: line)
        return result.errorLines.map { $0.replacingOccurrences(of: url.path, with: "pipeline.json") }
    }

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try problems(Array(text.utf8), file: file, line: line)
    }

    func testNestingDeeperThanTheLimitIsRefusedWhereItGoesTooDeep() throws {
        let limit = 100
        for depth in [limit + 1, 1_000, 5_000, 100_000] {
            let text = #"{ "steps": "# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
            // The root object and `limit - 1` lists are allowed: the next '[' is one too many.
            XCTAssertEqual(try problems(text), ["pipeline.json:1:\(12 + limit - 1): nesting deeper than \(limit) levels (lists and objects inside each other)"], "depth \(depth)")
        }
        let deepest = #"{ "steps": "# + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1) + "}"
        XCTAssertEqual(try problems(deepest), ["pipeline.json:1:13: steps[0]: expected an object, found a list"], "\(limit) levels are read")
    }

    func testTextThatIsNotUTF8IsRefusedAtTheFirstBadByte() throws {
        let start = Array(#"{ "steps": [ { "name": "a", "run": "x"#.utf8)
        XCTAssertEqual(try problems(start + [0xFF] + Array(#"" } ] }"#.utf8)),
            ["pipeline.json:1:38: the text is not valid UTF-8 (byte 0xFF); save the file as UTF-8"])
        XCTAssertEqual(try problems(start + [0xC3, 0x28] + Array(#"" } ] }"#.utf8)),
            ["pipeline.json:1:38: the text is not valid UTF-8 (byte 0xC3); save the file as UTF-8"], "a lead byte without its continuation")
        XCTAssertEqual(try problems(Array("{ \"steps\": [], ".utf8) + [0xE9] + [0x7D]),
            ["pipeline.json:1:16: JSON syntax error: unexpected byte 0xE9 (the text is not valid UTF-8), expected a field name in double quotes"])
        XCTAssertEqual(try problems([0xFF, 0xFE, 0x7B, 0x00]), ["pipeline.json:1:1: the file is UTF-16 text; save it as UTF-8"])
    }

    func testHalfASurrogatePairIsRefusedAtItsEscape() throws {
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "x\ud800" } ] }"#),
            [#"pipeline.json:1:38: JSON syntax error: \ud800 is the first half of a UTF-16 surrogate pair, but no second half (\udc00 to \udfff) follows it"#])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "\ud800\u0041" } ] }"#),
            [#"pipeline.json:1:37: JSON syntax error: \ud800 is the first half of a UTF-16 surrogate pair, but no second half (\udc00 to \udfff) follows it"#])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "\uDC00" } ] }"#),
            [#"pipeline.json:1:37: JSON syntax error: \udc00 is the second half of a UTF-16 surrogate pair, but no first half (\ud800 to \udbff) comes before it"#])
    }

    func testAWholeSurrogatePairAndOtherEscapesAreRead() throws {
        let path = try write(#"{ "steps": [ { "name": "a", "run": "echo \ud83d\ude00 \u00e9\t\"\/" } ] }"#)
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.contains("$ echo 😀 é\t\"/"), result.output)
    }

    func testANumberOutOfRangeIsRefusedWhereItIs() throws {
        XCTAssertEqual(try problems(#"{ "jobs": 1e999, "steps": [ { "name": "a", "run": "x" } ] }"#),
            ["pipeline.json:1:11: number out of range: 1e999 is beyond the largest number a pipeline can hold (about 1.8e308)"])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "x", "timeout": -2e400 } ] }"#),
            ["pipeline.json:1:52: number out of range: -2e400 is beyond the largest number a pipeline can hold (about 1.8e308)"])
    }

    func testEveryTypeErrorAndUnknownFieldIsReportedInTheOrderOfTheFile() throws {
        XCTAssertEqual(try problems(#"""
            { "stepz": 1,
              "steps": [
                { "name": "build", "run": 1, "timeout": "5s", "foo": true },
                { "run": "x", "needs": ["a", 2, null], "retry": { "attempts": "3", "tries": 2 } },
                "test",
                { "name": "lint", "run": "x", "env": { "A": 1, "B": "b" }, "when": { "exists": false } }
              ],
              "jobs": "2" }
            """#), [
                "pipeline.json:1:12: the pipeline: unknown field 'stepz' (did you mean 'steps'?); known fields: steps, jobs, env",
                "pipeline.json:3:31: step 'build': field 'run': expected a string, found a number",
                "pipeline.json:3:45: step 'build': field 'timeout': expected a number, found a string",
                "pipeline.json:3:58: step 'build': unknown field 'foo'; known fields: name, run, argv, needs, retry, timeout, exclusive, when, continueOnError, env, cwd, sources, generates",
                "pipeline.json:4:5: steps[1]: missing field 'name'",
                "pipeline.json:4:34: steps[1]: field 'needs[1]': expected a string, found a number",
                "pipeline.json:4:37: steps[1]: field 'needs[2]': expected a string, found null",
                "pipeline.json:4:67: steps[1]: field 'retry.attempts': expected a number, found a string",
                "pipeline.json:4:81: steps[1]: field 'retry': unknown field 'tries'; known fields: attempts, backoff, maxBackoff",
                "pipeline.json:5:5: steps[2]: expected an object, found a string",
                "pipeline.json:6:49: step 'lint': field 'env.A': expected a string, found a number",
                "pipeline.json:6:84: step 'lint': field 'when.exists': expected a string, found true or false",
                "pipeline.json:8:11: field 'jobs': expected a number, found a string",
            ])
    }

    func testAnOptionalFieldGivenAsNullIsAbsent() throws {
        let path = try write(#"{ "jobs": null, "steps": [ { "name": "a", "run": "x", "timeout": null, "env": null } ] }"#)
        XCTAssertEqual(try run([path, "--dry-run"]).status, 0)
    }

    func testAFileThatCannotBeReadSaysWhyInTheSystemsWords() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder.json"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("loop.json").path, withDestinationPath: "loop.json")
        for (name, reason) in [
            ("folder.json", "Is a directory"), ("nowhere.json", "No such file or directory"),
            ("loop.json", "Too many levels of symbolic links"), ("pipeline.json/x.json", "Not a directory"),
            ("/dev/zero", "it is larger than 16 MiB, too large for a pipeline file"),
        ] {
            try write("{}")
            let result = try run([name])
            XCTAssertEqual(result.status, 2, name)
            XCTAssertEqual(result.errorLines, ["\(name): cannot read: \(reason)"])
        }
        guard geteuid() != 0 else { return }  // root reads any file
        let locked = try write(#"{ "steps": [] }"#, to: "locked.json")
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked)
        XCTAssertEqual(try run(["locked.json"]).errorLines, ["locked.json: cannot read: Permission denied"])
    }
}
