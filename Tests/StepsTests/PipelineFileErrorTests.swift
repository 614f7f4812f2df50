import Foundation
import XCTest

/// A pipeline file that cannot run is refused before anything starts: exit status 2 and one
/// line per problem on standard error, naming the place (line:column), the step and the field.
final class PipelineFileErrorTests: StepsTestCase {
    /// Runs `steps` on `json` and returns its error lines, checking the status is 2 and that
    /// nothing went to standard output (no step ran).
    private func problems(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let path = try write(json)
        let result = try run([path])
        XCTAssertEqual(result.status, 2, result.output + result.errors, file: file, line: line)
        XCTAssertEqual(result.output, "", "nothing runs", file: file, line: line)
        return result.errorLines.map { $0.replacingOccurrences(of: path, with: "pipeline.json") }
    }

    func testJSONSyntaxErrorsGiveLineAndColumn() throws {
        XCTAssertEqual(try problems("""
            {
              "steps": [
                { "name": "a", "run": "true", },
              ]
            }
            """), ["pipeline.json:3:35: JSON syntax error: unexpected '}' after ',' (trailing commas are not allowed)"])
        XCTAssertEqual(try problems("{ \"steps\": [ { \"name\": \"a\" \"run\": \"x\" } ] }"),
            ["pipeline.json:1:28: JSON syntax error: unexpected '\"', expected ',' or '}'"])
        XCTAssertEqual(try problems("{ \"steps\": [ { \"name\": \"a\", \"run\": \"tr\nue\" } ] }"),
            ["pipeline.json:1:39: JSON syntax error: unterminated string (a line break inside a string must be written \\n)"],
            "points at the line break")
        XCTAssertEqual(try problems("{ \"steps\": [ { name: \"a\" } ] }"),
            ["pipeline.json:1:16: JSON syntax error: unexpected 'n', expected a field name in double quotes"])
        XCTAssertEqual(try problems("{ \"steps\": [] } }"),
            ["pipeline.json:1:17: JSON syntax error: unexpected '}' after the end of the document"])
        XCTAssertEqual(try problems("{ \"steps\": [ { \"name\": \"é\", \"run\": nul } ] }"),
            ["pipeline.json:1:36: JSON syntax error: unexpected 'n', expected a value (strings need double quotes)"], "columns count characters, not bytes")
        XCTAssertEqual(try problems(""), ["pipeline.json:1:1: JSON syntax error: the file is empty"])
        XCTAssertEqual(try problems("{ \"steps\": [ { \"name\": \"a\", \"run\": \"x\", \"run\": \"y\" } ] }"),
            ["pipeline.json:1:41: JSON syntax error: the field \"run\" appears twice in the same object"])
    }

    func testSchemaErrorsNameTheStepAndTheField() throws {
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "build", "run": "make", "timeout": "5s" } ] }"#),
            ["pipeline.json:1:59: step 'build': field 'timeout': expected a number, found a string"])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "build", "run": "make", "need": ["x"] } ] }"#),
            ["pipeline.json:1:56: step 'build': unknown field 'need' (did you mean 'needs'?); known fields: name, run, argv, needs, retry, timeout, exclusive, when, continueOnError, env, cwd, sources, generates"])
        XCTAssertEqual(try problems(#"{ "steps": [ { "run": "make" } ] }"#), ["pipeline.json:1:14: steps[0]: missing field 'name'"])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "x", "env": { "N": 1 } } ] }"#),
            ["pipeline.json:1:55: step 'a': field 'env.N': expected a string, found a number"])
        XCTAssertEqual(try problems(#"{ "steps": { "name": "a" } }"#), ["pipeline.json:1:12: field 'steps': expected a list, found an object"])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "x", "retry": { "tries": 2 } } ] }"#),
            [
                "pipeline.json:1:50: step 'a': field 'retry': missing field 'attempts'",
                "pipeline.json:1:61: step 'a': field 'retry': unknown field 'tries'; known fields: attempts, backoff, maxBackoff",
            ])
    }

    func testEveryMeaningErrorIsReportedOnItsOwnLineInTheOrderOfTheFile() throws {
        XCTAssertEqual(try problems(#"""
            { "jobs": 0,
              "steps": [
                { "name": "fetch", "run": "curl x" },
                { "name": "build", "run": "make", "argv": ["make"], "needs": ["fecth"] },
                { "name": "fetch", "run": "again" },
                { "name": "bad name", "run": "x" },
                { "name": "test", "run": "x", "retry": { "attempts": 0 }, "timeout": 0 },
                { "name": "deploy", "when": { "output": "nowhere", "matches": "(" } },
                { "name": "lint", "run": " ", "when": { "matches": "x" }, "needs": ["lint"] }
              ] }
            """#), [
                "pipeline.json:1:11: field 'jobs': must be a whole number from 1 to 1000000, not 0",
                "pipeline.json:4:47: step 'build': give either 'run' or 'argv', not both",
                "pipeline.json:4:67: step 'build': field 'needs': no step is named 'fecth' (did you mean 'fetch'?)",
                "pipeline.json:5:15: step 'fetch': the name is already used by steps[0]",
                "pipeline.json:6:15: steps[3]: field 'name': 'bad name' is not a valid step name (use letters, digits, '.', '_' and '-')",
                "pipeline.json:7:58: step 'test': field 'retry.attempts': must be a whole number from 1 to 1000000, not 0",
                "pipeline.json:7:74: step 'test': field 'timeout': must be more than 0 seconds, not 0.0",
                "pipeline.json:8:5: step 'deploy': needs a command: give 'run' (a shell command) or 'argv' (a program and its arguments)",
                "pipeline.json:8:45: step 'deploy': field 'when.output': no step is named 'nowhere'",
                "pipeline.json:8:67: step 'deploy': field 'when.matches': '(' is not a valid regular expression",
                "pipeline.json:9:30: step 'lint': field 'run': the command is empty",
                "pipeline.json:9:43: step 'lint': field 'when.matches' needs 'output' (the step whose output it reads)",
                "pipeline.json:9:73: step 'lint': field 'needs': a step cannot need itself",
            ])
    }

    func testACycleIsNamedStepByStep() throws {
        XCTAssertEqual(try problems(#"""
            { "steps": [
              { "name": "a", "run": "x", "needs": ["c"] },
              { "name": "b", "run": "x", "needs": ["a"] },
              { "name": "c", "run": "x", "needs": ["b"] },
              { "name": "d", "run": "x" }
            ] }
            """#), ["pipeline.json:2:39: cycle in needs: a -> c -> b -> a"])
        XCTAssertEqual(try problems(#"""
            { "steps": [
              { "name": "probe", "run": "x", "when": { "output": "report", "matches": "ok" } },
              { "name": "report", "run": "x", "needs": ["probe"] }
            ] }
            """#), ["pipeline.json:2:3: cycle in needs: probe -> report -> probe"], "reading a step's output waits for it, so it can close a cycle")
    }

    func testEveryCycleIsReportedOnceWithTheOtherProblems() throws {
        XCTAssertEqual(try problems(#"""
            { "steps": [
              { "name": "a", "run": "x", "needs": ["c"] },
              { "name": "b", "run": "x", "needs": ["a"] },
              { "name": "c", "run": "x", "needs": ["b"] },
              { "name": "d", "run": "x", "needs": ["d"] }
            ] }
            """#), [
                "pipeline.json:2:39: cycle in needs: a -> c -> b -> a",
                "pipeline.json:5:40: step 'd': field 'needs': a step cannot need itself",
            ])
        XCTAssertEqual(try problems(#"""
            { "steps": [
              { "name": "a", "run": "x", "needs": ["b"] },
              { "name": "b", "run": "x", "needs": ["a"] },
              { "name": "c", "run": "x", "needs": ["e"] },
              { "name": "d", "run": "x", "needs": ["c"] },
              { "name": "e", "run": "x", "needs": ["d", "a"] }
            ] }
            """#), [
                "pipeline.json:2:39: cycle in needs: a -> b -> a",
                "pipeline.json:4:39: cycle in needs: c -> e -> d -> c",
            ], "two separate cycles, each once; a step needing a cycle is in none")
    }

    func testNamesAndValuesAreQuotedEscapedOnOneLine() throws {
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "a", "run": "x", "ne\neds": ["b"] } ] }"#),
            ["pipeline.json:1:52: step 'a': unknown field 'ne\\neds' (did you mean 'needs'?); known fields: name, run, argv, needs, retry, timeout, exclusive, when, continueOnError, env, cwd, sources, generates"])
        XCTAssertEqual(try problems(#"{ "steps": [ { "name": "\u001b[31mred", "run": "x" }, { "name": "b", "run": "x", "needs": ["\r\u2028xyz"] } ] }"#), [
            "pipeline.json:1:24: steps[0]: field 'name': '\\u{1B}[31mred' is not a valid step name (use letters, digits, '.', '_' and '-')",
            "pipeline.json:1:92: step 'b': field 'needs': no step is named '\\r\\u{2028}xyz'",
        ])
        let strange = try write(#"{ "steps": [] }"#, to: "new\nline\u{1B}.json")
        let result = try run([strange])
        XCTAssertEqual(result.errorLines, [strange.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\u{1B}", with: "\\u{1B}") + ":1:12: field 'steps': the pipeline has no steps"],
            "the file's own name too")
    }

    func testAnEmptyPipelineAndAMissingFile() throws {
        XCTAssertEqual(try problems(#"{ "steps": [] }"#), ["pipeline.json:1:12: field 'steps': the pipeline has no steps"])
        let missing = try run(["nowhere.json"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.errorLines, ["nowhere.json: cannot read: No such file or directory"])
    }

    func testBadArgumentsAreOneLineWithStatus2() throws {
        let cases: [([String], String)] = [
            (["--jobs", "0"], "steps: --jobs needs a whole number from 1 to 1000000, not '0' (see steps --help)"),
            (["--jobs"], "steps: --jobs needs a value (see steps --help)"),
            (["--timeout", "soon"], "steps: --timeout needs a number of seconds above 0, not 'soon' (see steps --help)"),
            (["--grace", "-1"], "steps: --grace needs a number of seconds of at least 0, not '-1' (see steps --help)"),
            (["--frob"], "steps: unknown option '--frob' (see steps --help)"),
            (["a.json", "b.json"], "steps: only one pipeline file may be given ('a.json', then 'b.json') (see steps --help)"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertEqual(result.errorLines, [message])
        }
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.output.hasPrefix("USAGE: steps [PIPELINE.json] [options]"), help.output)
    }
}
