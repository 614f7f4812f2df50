import Foundation
import ProceduresTestSupport
import XCTest

/// What `steps` says about steps that wait (why), about unfinished steps on request
/// (`--explain`), and about steps that report progress (`::progress`), in plain output.
final class WaitingAndProgressTests: StepsTestCase {
    /// A step command that waits until the test creates `release` in its directory.
    private let untilReleased = "while [ ! -e release ]; do sleep 0.05; done"

    /// Creates `release`, from any thread.
    private var release: @Sendable () -> Void {
        let path = directory.appendingPathComponent("release").path
        return { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    }

    func testPlainOutputSaysWhyAStepWaits() throws {
        try write(#"""
            { "steps": [
              { "name": "migrate-db", "exclusive": ["database"], "run": "\#(untilReleased)" },
              { "name": "seed-db", "exclusive": ["database"], "run": "true" },
              { "name": "fetch-deps", "run": "\#(untilReleased)" },
              { "name": "build", "needs": ["fetch-deps"], "run": "true" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--plain", "--jobs", "4"]) { [release] output, _ in
            if output.contains("wait seed-db: waiting for database, held by migrate-db")
                && output.contains("wait build: waiting for fetch-deps")
            {
                release()
            }
        }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("wait seed-db: waiting for database, held by migrate-db"), result.output)
        XCTAssertTrue(result.output.contains("wait build: waiting for fetch-deps"), result.output)
    }

    func testAReadyStepWaitsForAFreeJob() throws {
        try write(#"""
            { "steps": [
              { "name": "first", "run": "\#(untilReleased)" },
              { "name": "second", "run": "true" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--plain", "--jobs", "1"]) { [release] output, _ in
            if output.contains("wait second: waiting for a free job (1 running)") { release() }
        }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("wait second: waiting for a free job (1 running)"), result.output)
    }

    func testExplainListsEveryUnfinishedStepOnSIGUSR1() throws {
        try write(#"""
            { "steps": [
              { "name": "holder", "run": "echo '::progress 3/10'; \#(untilReleased)" },
              { "name": "waiter", "needs": ["holder"], "run": "true" }
            ] }
            """#)
        let signalled = LockedBox(false)
        let result = try run(["pipeline.json", "--plain", "--explain"]) { [release] output, process in
            if output.contains("Unfinished steps") {
                release()
            } else if output.contains("progress holder 30%"), !signalled.mutate({ sent in defer { sent = true }; return sent }) {
                kill(process.processIdentifier, SIGUSR1)
            }
        }
        XCTAssertEqual(result.status, 0, result.output)
        let lines = result.output.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("Unfinished steps (2):") }, result.output)
        XCTAssertTrue(lines[header + 1].hasPrefix("  holder: running "), result.output)
        XCTAssertTrue(lines[header + 1].hasSuffix(", 30%"), result.output)
        XCTAssertEqual(lines[header + 2], "  waiter: waiting for holder", result.output)
    }

    func testExplainListsEveryUnfinishedStepWhenTheTimeoutExpires() throws {
        try write(#"""
            { "steps": [
              { "name": "slow", "run": "sleep 30" },
              { "name": "after", "needs": ["slow"], "run": "true" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--plain", "--explain", "--timeout", "0.5"])
        XCTAssertEqual(result.status, 124, result.output)
        let lines = result.output.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("Unfinished steps (2):") }, result.output)
        XCTAssertTrue(lines[header + 1].hasPrefix("  slow: running "), result.output)
        XCTAssertEqual(lines[header + 2], "  after: waiting for slow", result.output)
        XCTAssertLessThan(header, try XCTUnwrap(lines.firstIndex { $0.contains("Timed out after") }))
    }

    func testProgressLinesShowAsAPercentageInPlainOutputAndStayInTheLog() throws {
        try write(#"""
            { "steps": [
              { "name": "download", "run": "echo '::progress 1/4'; \#(untilReleased); echo '::progress 100%'; echo done" }
            ] }
            """#)
        let result = try run(["pipeline.json", "--plain", "--output", "grouped"]) { [release] output, _ in
            if output.contains("progress download 25%") { release() }
        }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("progress download 25%"), result.output)
        XCTAssertTrue(result.output.contains("progress download 100%"), result.output)
        XCTAssertTrue(result.output.contains("done"), result.output)
        XCTAssertFalse(result.output.contains("::progress"), result.output)
        XCTAssertEqual(try read(".steps/logs/download.log"), "::progress 1/4\n::progress 100%\ndone\n")
    }
}
