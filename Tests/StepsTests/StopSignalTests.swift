import Foundation
import ProceduresTestSupport
import XCTest

/// Every way `steps` can be stopped from outside — Ctrl-C, SIGTERM, SIGHUP, its standard
/// output closed by its reader — stops the run and leaves no step process behind, and
/// SIGUSR1 without `--explain` prints the explanation instead of killing it. Each test finds
/// the step's processes in `/proc` by a marker no other process has (the step's `sleep`
/// sleeps a unique number of seconds), and checks there afterwards that none survives.
final class StopSignalTests: StepsTestCase {
    /// The seconds the step's `sleep` is given: unique to the test, so that its processes (the
    /// `sleep` and the step's shell, whose command line holds it) can be told from any other.
    private var marker = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        marker = "3600.\(UInt32.random(in: 100_000_000...999_999_999))"
        // The step prints as it runs, so that a closed standard output is found by a write.
        try write(#"{ "steps": [ { "name": "long", "run": "sleep \#(marker) & while :; do echo tick; sleep 0.05; done" } ] }"#)
    }

    override func tearDownWithError() throws {
        // A failed test's survivors are ended, so that they do not outlive the tests.
        for pid in Self.processes(marked: marker) { kill(pid, SIGKILL) }
        try super.tearDownWithError()
    }

    func testCtrlCStopsTheRunAndLeavesNoStepProcess() throws {
        try assertSignalStopsTheRun(SIGINT, status: 130, note: "Interrupted: stopping 1 running step(s)")
    }

    func testSIGTERMStopsTheRunAndLeavesNoStepProcess() throws {
        try assertSignalStopsTheRun(SIGTERM, status: 143, note: "Terminated (SIGTERM): stopping 1 running step(s)")
    }

    func testSIGHUPStopsTheRunAndLeavesNoStepProcess() throws {
        try assertSignalStopsTheRun(SIGHUP, status: 129, note: "Hung up (SIGHUP): stopping 1 running step(s)")
    }

    func testSIGUSR1WithoutExplainPrintsTheExplanationAndTheRunGoesOn() throws {
        let marker = self.marker
        let signalled = LockedBox(false)
        let seen = LockedBox("")
        let result = try run(["pipeline.json", "--plain"], timeout: 30) { _, process in
            guard signalled.mutate({ first in defer { first = true }; return !first }) else { return }
            Thread.detachNewThread {
                Self.await("the step's sleep \(marker)") { Self.sleepRuns(marker) }
                kill(process.processIdentifier, SIGUSR1)
                // Still running after it, and saying what it waits for: then it is stopped.
                Self.await("the explanation") { seen.value.contains("Unfinished steps (1):") }
                kill(process.processIdentifier, SIGTERM)
            }
        } observing: { text in seen.mutate { $0 = text } }
        XCTAssertEqual(result.status, 143, "SIGUSR1 ended the run: " + result.output + result.errors)
        XCTAssertTrue(result.output.contains("Unfinished steps (1):\n  long: running"), result.output)
        XCTAssertEqual(Self.processes(marked: marker), [], "step processes outlived steps")
    }

    func testAClosedStandardOutputStopsTheRunAndLeavesNoStepProcess() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.binary.path), "missing \(Self.binary.path)")
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["pipeline.json", "--output", "prefixed"]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": directory.path]) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let errors = LockedBox(Data())
        let errorsEnded = expectation(description: "standard error closed")
        Thread.detachNewThread {
            while case let data = err.fileHandleForReading.availableData, !data.isEmpty { errors.mutate { $0.append(data) } }
            errorsEnded.fulfill()
        }
        let exited = expectation(description: "steps exited")
        process.terminationHandler = { _ in exited.fulfill() }
        try process.run()
        // As `steps … | head -5` does: read five lines once the step runs, then close the pipe.
        let marker = self.marker
        Self.await("the step's sleep \(marker)") { Self.sleepRuns(marker) }
        var seen = Data()
        while seen.filter({ $0 == UInt8(ascii: "\n") }).count < 5 {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen.append(data)
        }
        try out.fileHandleForReading.close()
        if XCTWaiter().wait(for: [exited, errorsEnded], timeout: 30) != .completed {
            XCTFail("steps did not end after its standard output was closed; killed")
            kill(process.processIdentifier, SIGKILL)
            wait(for: [exited, errorsEnded], timeout: 10)
        }
        let stderr = String(decoding: errors.value, as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .exit, "killed by a signal: \(process.terminationStatus)")
        XCTAssertEqual(process.terminationStatus, 141, stderr)
        XCTAssertTrue(stderr.contains("steps: standard output was closed: stopping 1 running step(s), then exiting with 141"), stderr)
        XCTAssertEqual(Self.processes(marked: marker), [], "step processes outlived steps")
    }

    // MARK: - Helpers

    /// Runs the step, sends `signal` once its `sleep` runs, and checks the run stops with
    /// `status`, saying `note`, and that none of the step's processes is left.
    private func assertSignalStopsTheRun(_ signal: Int32, status: Int32, note: String, line: UInt = #line) throws {
        let marker = self.marker
        let signalled = LockedBox(false)
        let result = try run(["pipeline.json", "--plain"], timeout: 30) { _, process in
            guard signalled.mutate({ first in defer { first = true }; return !first }) else { return }
            Thread.detachNewThread {
                Self.await("the step's sleep \(marker)") { Self.sleepRuns(marker) }
                kill(process.processIdentifier, signal)
            }
        }
        XCTAssertEqual(result.status, status, result.output + result.errors, line: line)
        XCTAssertTrue(result.output.contains(note), result.output, line: line)
        XCTAssertEqual(Self.processes(marked: marker), [], "step processes outlived steps", line: line)
    }

    /// `run`, with `observing` told of the output collected so far each time more arrives.
    private func run(
        _ arguments: [String], timeout: TimeInterval, onOutput: @escaping @Sendable (String, Process) -> Void,
        observing: @escaping @Sendable (String) -> Void
    ) throws -> Run {
        try run(arguments, timeout: timeout) { text, process in
            observing(text)
            onOutput(text, process)
        }
    }

    /// Waits (polling, at most 20 s) for what another process makes true; fails the test if it
    /// does not come.
    private static func await(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(20)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what)") }
            usleep(20_000)
        }
    }

    /// Whether the step's `sleep` runs (its shell's command line holds the marker before it has
    /// started it).
    private static func sleepRuns(_ marker: String) -> Bool {
        processes(marked: marker).contains { pid in
            FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") == Data("sleep\0\(marker)\0".utf8)
        }
    }

    /// The live processes (not zombies) whose command line holds `marker`.
    private static func processes(marked marker: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: commandLine, as: UTF8.self).contains(marker) && isAlive(pid)
        }.sorted()
    }
}
