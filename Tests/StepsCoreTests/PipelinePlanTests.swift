import XCTest
@testable import StepsCore

/// The plan, in process: stages in order, and the text `--dry-run` prints.
final class PipelinePlanTests: XCTestCase {
    private func pipeline(_ text: String) throws -> Pipeline {
        try PipelineFile.parse(Data(text.utf8), named: "p.json", directory: URL(fileURLWithPath: "/p")).pipeline
    }

    private let diamond = #"""
        { "steps": [
          { "name": "package", "needs": ["test", "docs"], "run": "tar" },
          { "name": "test", "needs": ["build"], "run": "make test" },
          { "name": "docs", "when": { "output": "build", "matches": "ok" }, "run": "make docs" },
          { "name": "build", "argv": ["make", "all things"] } ] }
        """#

    func testEachStepRunsOneStageAfterTheLatestStepItWaitsFor() throws {
        let plan = PipelinePlan(try pipeline(diamond))
        XCTAssertEqual(plan.stages.map { "\($0.step.name) \($0.stage)" }, ["build 1", "test 2", "docs 2", "package 3"])
        XCTAssertEqual(plan.steps.map(\.name), ["package", "test", "docs", "build"], "the file's order is kept too")
    }

    func testThePlanAsDryRunPrintsIt() throws {
        XCTAssertEqual(PipelinePlan(try pipeline(diamond)).render(jobs: 2), """
            Plan: 4 step(s), at most 2 at a time; each stage starts once the steps it needs have succeeded.
                1  build    $ make 'all things'
                2  test     $ make test
                            needs build
                2  docs     $ make docs
                            needs build · when output of build matches /ok/
                3  package  $ tar
                            needs test, docs

            """)
    }
}
