import Foundation
import ProceduresTestSupport
import XCTest
@testable import StepsCore

/// A run, in process, with real processes: what each step's outcome is, what the display is
/// told, what the logs keep, and the exit status.
final class RunOutcomeTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-outcome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `text` (a pipeline) with `jobs` at once and returns the exit status and the display.
    private func run(_ text: String, jobs: Int = 2) throws -> (status: Int32, display: RecordingDisplay, run: PipelineRun) {
        let pipeline = try PipelineFile.parse(Data(text.utf8), named: "p.json", directory: directory).pipeline
        let display = RecordingDisplay()
        let context = RunContext(pipeline: pipeline, logDirectory: directory.appendingPathComponent("logs"), display: display)
        let run = PipelineRun(context: context, jobs: jobs, timeout: nil, tracePath: nil)
        let status = LockedBox<Int32?>(nil)
        let ended = expectation(description: "the run ended")
        // Signals stay the test process's own: the run does not take SIGINT and SIGTERM over.
        run.start(handlingSignals: false) { code in
            status.mutate { $0 = code }
            ended.fulfill()
        }
        wait(for: [ended], timeout: 30)
        return (try XCTUnwrap(status.value), display, run)
    }

    func testStepsRunAfterTheirNeedsAndAFailureSkipsWhatNeedsIt() throws {
        let (status, display, run) = try run(#"""
            { "steps": [
              { "name": "a", "run": "echo made > a.txt; echo a-out; echo a-err >&2" },
              { "name": "b", "needs": ["a"], "run": "cat a.txt" },
              { "name": "broken", "run": "exit 3" },
              { "name": "after", "needs": ["broken"], "run": "touch after-ran" },
              { "name": "tolerated", "run": "exit 1", "continueOnError": true },
              { "name": "skipped", "when": { "env": "STEPS_TEST_UNSET_VARIABLE" }, "run": "touch skipped-ran" } ] }
            """#)
        XCTAssertEqual(status, 1, "a step failed")
        let outcomes = Dictionary(uniqueKeysWithValues: run.context.pipeline.steps.map { ($0.name, run.context.records[$0.name]!.outcome) })
        XCTAssertEqual(outcomes["a"], .succeeded)
        XCTAssertEqual(outcomes["b"], .succeeded)
        XCTAssertEqual(outcomes["broken"], .failed(reason: "exit status 3", ignored: false))
        XCTAssertEqual(outcomes["after"], .skipped(reason: "needs 'broken', which failed"))
        XCTAssertEqual(outcomes["tolerated"], .failed(reason: "exit status 1", ignored: true))
        XCTAssertEqual(outcomes["skipped"], .skipped(reason: "$STEPS_TEST_UNSET_VARIABLE is not set"))
        let events = display.events
        XCTAssertLessThan(try XCTUnwrap(events.firstIndex(of: "finished a: ok")), try XCTUnwrap(events.firstIndex(of: "start b try 1")))
        XCTAssertFalse(events.contains("start after try 1"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("after-ran").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("skipped-ran").path))
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("logs/a.log"), encoding: .utf8), "a-out\n")
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("logs/a.err.log"), encoding: .utf8), "a-err\n")
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("logs/b.log"), encoding: .utf8), "made\n")
        XCTAssertTrue(display.finalSummary?.contains("Failed in ") ?? false, display.finalSummary ?? "no summary")
    }

    func testAFailedTryIsRetriedAndTheRunSucceeds() throws {
        let (status, display, _) = try run(#"""
            { "steps": [ { "name": "flaky", "retry": { "attempts": 3, "backoff": 0 },
                           "run": "n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; [ $n -ge 1 ]" } ] }
            """#)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(display.events.filter { $0.hasPrefix("start flaky") }, ["start flaky try 1", "start flaky try 2"])
        XCTAssertEqual(display.events.filter { $0.hasPrefix("retry") }, ["retry flaky after try 1: exit status 1"])
    }

    func testStoppingTheRunStopsItsStepsAndExits130() throws {
        let pipeline = try PipelineFile.parse(
            Data(#"{ "steps": [ { "name": "long", "run": "touch started; sleep 60" }, { "name": "later", "needs": ["long"], "run": "true" } ] }"#.utf8),
            named: "p.json", directory: directory
        ).pipeline
        let display = RecordingDisplay()
        let run = PipelineRun(
            context: RunContext(pipeline: pipeline, logDirectory: directory.appendingPathComponent("logs"), display: display, gracePeriod: 5),
            jobs: 1, timeout: nil, tracePath: nil)
        let status = LockedBox<Int32?>(nil)
        let ended = expectation(description: "the run ended")
        run.start(handlingSignals: false) { code in
            status.mutate { $0 = code }
            ended.fulfill()
        }
        let started = directory.appendingPathComponent("started").path
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: started) && Date() < deadline { usleep(10_000) }
        run.stop(.interrupted)
        wait(for: [ended], timeout: 10)
        XCTAssertEqual(status.value, 130)
        XCTAssertEqual(run.context.records["long"]?.outcome, .stopped)
        XCTAssertEqual(run.context.records["later"]?.outcome, .stopped)
        XCTAssertTrue(display.events.contains { $0.hasPrefix("note: Interrupted: stopping 1 running step(s)") }, "\(display.events)")
    }
}
