import XCTest
@testable import StepsCore

/// A pipeline file read in process: the schema reader reports every wrong shape, the checker
/// every wrong meaning, each at its place and in the order of the file.
final class PipelineFileTests: XCTestCase {
    private let directory = URL(fileURLWithPath: "/pipelines")

    private func read(_ text: String) throws(PipelineError) -> PipelineDocument {
        try PipelineFile.parse(Data(text.utf8), named: "p.json", directory: directory)
    }

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try read(text)
            XCTFail("accepted", file: file, line: line)
            return []
        } catch {
            return error.lines
        }
    }

    func testAValidFileBecomesStepsWithTheirSettings() throws {
        let document = try read(#"""
            { "jobs": 3, "env": { "A": "1" },
              "steps": [
                { "name": "build", "argv": ["make", "-j"], "cwd": "src", "env": { "B": "2" },
                  "retry": { "attempts": 3, "backoff": 0.5 }, "timeout": 60, "exclusive": ["cpu"] },
                { "name": "test", "run": "make test", "needs": ["build"], "continueOnError": true,
                  "when": { "output": "build", "matches": "ok" }, "sources": ["src/**"] } ] }
            """#)
        let pipeline = document.pipeline
        XCTAssertEqual(pipeline.jobs, 3)
        XCTAssertEqual(pipeline.environment, ["A": "1"])
        XCTAssertEqual(pipeline.steps.map(\.name), ["build", "test"])
        let build = pipeline.steps[0]
        XCTAssertEqual(build.command, .argv(["make", "-j"]))
        XCTAssertEqual(build.retry, Step.Retry(attempts: 3, backoff: 0.5, maxBackoff: 30))
        XCTAssertEqual(build.timeout, 60)
        XCTAssertEqual(build.exclusive, ["cpu"])
        XCTAssertEqual(pipeline.directory(of: build).path, "/pipelines/src")
        let test = pipeline.steps[1]
        XCTAssertEqual(test.command, .shell("make test"))
        XCTAssertEqual(test.dependencies, ["build"])
        XCTAssertTrue(test.continueOnError)
        XCTAssertEqual(test.when, [.output(step: "build", matches: "ok")])
        XCTAssertNotNil(test.sources)
        XCTAssertEqual(document.render([PipelineProblem(offset: document.root.offset(of: ["steps", "[1]", "run"]), message: "m")]), ["p.json:5:30: m"])
    }

    func testTheSchemaReaderReportsEveryWrongShapeInTheOrderOfTheFile() {
        XCTAssertEqual(problems(#"{ "jobs": "2", "steps": [ { "name": 1, "run": ["x"], "sources": "a", "bogus": 1 }, 7 ], "x": null }"#), [
            "p.json:1:11: field 'jobs': expected a number, found a string",
            "p.json:1:37: steps[0]: field 'name': expected a string, found a number",
            "p.json:1:47: steps[0]: field 'run': expected a string, found a list",
            "p.json:1:65: steps[0]: field 'sources': expected a list, found a string",
            "p.json:1:79: steps[0]: unknown field 'bogus'; known fields: name, run, argv, needs, retry, timeout, exclusive, when, continueOnError, env, cwd, sources, generates",
            "p.json:1:84: steps[1]: expected an object, found a number",
            "p.json:1:94: the pipeline: unknown field 'x'; known fields: steps, jobs, env",
        ])
        XCTAssertEqual(problems("[]"), ["p.json:1:1: the pipeline: expected an object, found a list"])
        XCTAssertEqual(problems("{}"), ["p.json:1:1: the pipeline: missing field 'steps'"])
    }

    func testTheCheckerRunsOnlyOnAWellShapedFileAndReportsEveryMeaningError() {
        XCTAssertEqual(problems(#"{ "steps": [ { "name": "a", "run": "x", "needs": ["b"] }, { "name": "a", "run": 1 } ] }"#),
            ["p.json:1:81: step 'a': field 'run': expected a string, found a number"], "shape first: no meaning errors yet")
        XCTAssertEqual(problems(#"{ "steps": [ { "name": "a", "run": "x", "needs": ["b"] }, { "name": "a", "run": "" } ] }"#), [
            "p.json:1:51: step 'a': field 'needs': no step is named 'b' (did you mean 'a'?)",
            "p.json:1:69: step 'a': the name is already used by steps[0]",
            "p.json:1:81: step 'a': field 'run': the command is empty",
        ])
        XCTAssertEqual(problems(#"{ "steps": [ { "name": "a", "run": "x", "needs": ["b"] }, { "name": "b", "run": "y", "needs": ["a"] } ] }"#),
            ["p.json:1:50: cycle in needs: a -> b -> a"])
    }

    func testASuggestionIsTheFirstNameWithinTwoEdits() {
        XCTAssertEqual(PipelineFile.closest(to: "fecth", among: ["build", "fetch", "fetched"]), "fetch")
        XCTAssertEqual(PipelineFile.closest(to: "NEED", among: ["name", "needs"]), "needs", "case does not count")
        XCTAssertEqual(PipelineFile.closest(to: "ab", among: ["xy", "ax", "ab"]), "ab", "the nearest, not the first within two")
        XCTAssertEqual(PipelineFile.closest(to: "ab", among: ["ax", "xb"]), "ax", "the first of equals")
        XCTAssertNil(PipelineFile.closest(to: "deploy", among: ["build", "test"]))
        XCTAssertNil(PipelineFile.closest(to: "a", among: ["abcd"]), "three insertions")
        XCTAssertEqual(PipelineFile.closest(to: "", among: ["ab"]), "ab")
        let long = String(repeating: "x", count: 100_000)
        XCTAssertEqual(PipelineFile.closest(to: long + "y", among: [long + "zz", long]), long, "long names cost only a band of cells each")
        for (a, b, distance) in [("kitten", "sitting", 3), ("flaw", "lawn", 2), ("abc", "abc", 0), ("abc", "acb", 2), ("", "ab", 2), ("ab", "", 2)] {
            let measured = PipelineFile.editDistance(Array(a), Array(b), atMost: 2)
            XCTAssertEqual(measured, distance <= 2 ? distance : nil, "\(a), \(b)")
            XCTAssertEqual(PipelineFile.editDistance(Array(a), Array(b), atMost: 3), distance, "\(a), \(b)")
        }
    }

    func testCountsHaveTheirRealLimits() {
        XCTAssertEqual(PipelineChecker.count(1), 1)
        XCTAssertEqual(PipelineChecker.count(1_000_000), 1_000_000)
        for refused in [0, 1.5, 1_000_001, -1, .infinity, .nan] { XCTAssertNil(PipelineChecker.count(refused), "\(refused)") }
        XCTAssertEqual(problems(#"{ "jobs": 1e7, "steps": [ { "name": "a", "run": "x" } ] }"#),
            ["p.json:1:11: field 'jobs': must be a whole number from 1 to 1000000, not 10000000"])
    }
}
