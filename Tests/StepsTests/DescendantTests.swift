import Foundation
import ProceduresTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// What a step's program leaves behind — a descendant in a session of its own, a daemon, a
/// killed grandchild — neither holds `steps` up nor outlives it, not even as a zombie. Each
/// test runs with the strongest containment `steps` can have here (a cgroup per step when it
/// may make them) and again with `PROCEDURES_CONTAINMENT=subreaper`.
final class DescendantTests: StepsTestCase {
    private static let subreaper = ["PROCEDURES_CONTAINMENT": "subreaper"]

    func testATimedOutRunWhoseStepLeftItsSessionEndsWithinTheGracePeriod() throws {
        try assertTimedOutRunEndsWithinTheGracePeriod(environment: [:])
    }

    func testATimedOutRunWhoseStepLeftItsSessionEndsWithinTheGracePeriodWithASubreaper() throws {
        try assertTimedOutRunEndsWithinTheGracePeriod(environment: Self.subreaper)
    }

    func testCtrlCLeavesNoProcessAndNoZombie() throws {
        try assertCtrlCLeavesNoProcessAndNoZombie(environment: [:])
    }

    func testCtrlCLeavesNoProcessAndNoZombieWithASubreaper() throws {
        try assertCtrlCLeavesNoProcessAndNoZombie(environment: Self.subreaper)
    }

    func testADaemonStartedByAStepDoesNotOutliveTheRun() throws {
        try assertDaemonDoesNotOutliveTheRun(environment: [:])
    }

    func testADaemonStartedByAStepDoesNotOutliveTheRunWithASubreaper() throws {
        try assertDaemonDoesNotOutliveTheRun(environment: Self.subreaper)
    }

    // MARK: - The cases

    private func assertTimedOutRunEndsWithinTheGracePeriod(environment: [String: String], line: UInt = #line) throws {
        // The descendant records its pid once it has left the step's process group and session.
        try write(#"{ "steps": [ { "name": "escape", "run": "setsid sh -c 'echo $$ > escaped.pid; exec sleep 15' & sleep 100" } ] }"#)
        let result = try run(["pipeline.json", "--timeout", "1", "--grace", "1"], environment: environment)
        XCTAssertEqual(result.status, 124, result.output + result.errors, line: line)
        XCTAssertLessThan(result.seconds, 1 + 1 + 1, "held up by the escaped descendant", line: line)
        assertGone(try recordedPid("escaped.pid"), line: line)
    }

    private func assertCtrlCLeavesNoProcessAndNoZombie(environment: [String: String], line: UInt = #line) throws {
        // Each shell's child is killed with it: if the child dies first, it is a zombie of the
        // shell, which then dies; either way it ends up an orphan that someone must reap.
        let long = { (name: String) in
            #"{ "name": "\#(name)", "run": "sleep 60 & echo $! > \#(name).child; echo $$ > \#(name).pid; wait" }"#
        }
        try write(#"{ "steps": ["# + ["a", "b"].map(long).joined(separator: ",") + "] }")
        let files = ["a.pid", "a.child", "b.pid", "b.child"]
        let interrupted = LockedBox(false)
        let directory = self.directory!
        let result = try run(["pipeline.json", "--jobs", "2"], environment: environment) { _, process in
            guard interrupted.mutate({ first in defer { first = true }; return !first }) else { return }
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline,
                    !files.allSatisfy({ FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) })
                {
                    usleep(10_000)
                }
                kill(process.processIdentifier, SIGINT)
            }
        }
        XCTAssertEqual(result.status, 130, result.output + result.errors, line: line)
        for name in files { assertGone(try recordedPid(name), line: line) }
    }

    private func assertDaemonDoesNotOutliveTheRun(environment: [String: String], line: UInt = #line) throws {
        // A double fork: the daemon's parent exits at once, and the step succeeds.
        let script = #"(setsid sh -c 'echo $$ > daemon.pid; exec sleep 100' >/dev/null 2>&1 &); until [ -s daemon.pid ]; do sleep 0.01; done"#
        try write(#"{ "steps": [ { "name": "daemon", "run": "\#(script)" } ] }"#)
        let result = try run(["pipeline.json"], environment: environment)
        XCTAssertEqual(result.status, 0, result.output + result.errors, line: line)
        assertGone(try recordedPid("daemon.pid"), line: line)
    }

    // MARK: - Helpers

    private func recordedPid(_ name: String) throws -> Int32 {
        try XCTUnwrap(Int32(try read(name).trimmingCharacters(in: .whitespacesAndNewlines)), "\(name) holds no pid")
    }

    /// The process is gone and was reaped: not running, and not a zombie either.
    private func assertGone(_ pid: Int32, line: UInt = #line) {
        let gone = kill(pid, 0) == -1 && errno == ESRCH
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).map { String($0.prefix(80)) } ?? "?"
        XCTAssertTrue(gone, "pid \(pid) is still there: \(state)", line: line)
    }
}
