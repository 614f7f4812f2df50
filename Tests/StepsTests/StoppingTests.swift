import Foundation
import ProceduresTestSupport
import XCTest

/// Ctrl-C and `--timeout` stop the whole graph: every child process is terminated (its own
/// children too) before `steps` exits with 130 or 124.
final class StoppingTests: StepsTestCase {
    /// Three long steps running, each recording its shell's pid and a background child's pid,
    /// and two more waiting behind them.
    private func writeLongPipeline() throws {
        let long = { (name: String) in
            #"{ "name": "\#(name)", "run": "sleep 60 & echo $! > \#(name).child; echo $$ > \#(name).pid; wait" }"#
        }
        try write(#"{ "steps": ["# + ["a", "b", "c"].map(long).joined(separator: ",") + #"""
            , { "name": "waiting", "needs": ["a"], "run": "touch waiting-ran" },
              { "name": "queued", "run": "touch queued-ran" } ] }
            """#)
    }

    private var recordedPids: [Int32] {
        ["a", "b", "c"].flatMap { name in
            [".pid", ".child"].compactMap { suffix in
                (try? read(name + suffix)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
    }

    /// Whether a pid file has been written (the shell creates it, then writes: a signal in
    /// between would leave it empty).
    private static func hasContent(_ url: URL) -> Bool {
        ((try? Data(contentsOf: url))?.last) == UInt8(ascii: "\n")
    }

    func testCtrlCTerminatesEveryChildThenExits130() throws {
        try writeLongPipeline()
        let interrupted = LockedBox(false)
        let interruptTime = LockedBox<TimeInterval?>(nil)
        let directory = self.directory!
        // A 30 s grace period: children stopped well before it were stopped by SIGTERM.
        let result = try run(["pipeline.json", "--jobs", "3", "--grace", "30"]) { _, process in
            guard interrupted.mutate({ first in defer { first = true }; return !first }) else { return }
            // Interrupt once all three long steps have started their children.
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(20)
                let files = ["a", "b", "c"].flatMap { [$0 + ".pid", $0 + ".child"] }
                while Date() < deadline,
                    !files.allSatisfy({ Self.hasContent(directory.appendingPathComponent($0)) })
                {
                    usleep(10_000)
                }
                interruptTime.mutate { $0 = Date().timeIntervalSince1970 }
                kill(process.processIdentifier, SIGINT)
            }
        }
        XCTAssertEqual(result.status, 130, result.output + result.errors)
        // SIGTERM reaches the children (they do not inherit Dispatch's blocked signal mask), so
        // they stop long before the 30 s grace period after which SIGKILL would be sent.
        let stopping = Date().timeIntervalSince1970 - interruptTime.value!
        XCTAssertLessThan(stopping, 20, "the children waited for SIGKILL")
        let pids = recordedPids
        XCTAssertEqual(pids.count, 6, "every long step recorded its shell and its child")
        for pid in pids { XCTAssertFalse(Self.isAlive(pid), "process \(pid) outlived steps") }
        XCTAssertTrue(result.output.contains("Interrupted: stopping 3 running step(s)"), result.output)
        XCTAssertTrue(result.output.contains("Interrupted in"), result.output)
        XCTAssertTrue(result.output.contains("■ a"), result.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("waiting-ran").path))
    }

    func testOverallTimeoutStopsEverythingAndExits124() throws {
        try writeLongPipeline()
        let result = try run(["pipeline.json", "--jobs", "3", "--timeout", "1"])
        XCTAssertEqual(result.status, 124, result.output + result.errors)
        XCTAssertGreaterThanOrEqual(result.seconds, 1)
        XCTAssertLessThan(result.seconds, 15)
        for pid in recordedPids { XCTAssertFalse(Self.isAlive(pid), "process \(pid) outlived steps") }
        XCTAssertTrue(result.output.contains("Timed out after 1s: stopping 3 running step(s)"), result.output)
        XCTAssertTrue(result.output.contains("Timed out in"), result.output)
    }

    func testSIGTERMStopsEverythingAndExits143() throws {
        try writeLongPipeline()
        let signalled = LockedBox(false)
        let directory = self.directory!
        let result = try run(["pipeline.json", "--jobs", "3"]) { _, process in
            guard signalled.mutate({ first in defer { first = true }; return !first }) else { return }
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline, !FileManager.default.fileExists(atPath: directory.appendingPathComponent("c.child").path) {
                    usleep(10_000)
                }
                kill(process.processIdentifier, SIGTERM)
            }
        }
        XCTAssertEqual(result.status, 143, result.output + result.errors)
        for pid in recordedPids { XCTAssertFalse(Self.isAlive(pid), "process \(pid) outlived steps") }
        XCTAssertTrue(result.output.contains("Terminated in"), result.output)
    }

    func testAChildIgnoringSIGTERMIsKilledAfterTheGracePeriod() throws {
        try write(#"{ "steps": [ { "name": "stubborn", "run": "trap '' TERM; echo $$ > stubborn.pid; while true; do sleep 0.05; done" } ] }"#)
        let result = try run(["pipeline.json", "--timeout", "0.5"])
        XCTAssertEqual(result.status, 124, result.output + result.errors)
        XCTAssertLessThan(result.seconds, 10)
        let pid = Int32(try read("stubborn.pid").trimmingCharacters(in: .whitespacesAndNewlines))!
        XCTAssertFalse(Self.isAlive(pid))
    }

    func testASecondCtrlCKillsEveryProcessGroupAtOnceAndExits130() throws {
        // Both steps ignore SIGTERM: the first Ctrl-C alone would wait out the 60 s grace period.
        try write(#"""
            { "steps": [
              { "name": "a", "run": "trap '' TERM; echo $$ > a.pid; while true; do sleep 0.05; done" },
              { "name": "b", "run": "trap '' TERM; echo $$ > b.pid; while true; do sleep 0.05; done" } ] }
            """#)
        let directory = self.directory!
        let signalled = LockedBox(false)
        let secondSent = LockedBox<Date?>(nil)
        let seen = LockedBox("")
        let result = try run(["pipeline.json", "--jobs", "2", "--grace", "60", "--plain"], timeout: 30) { output, process in
            seen.mutate { $0 = output }
            guard signalled.mutate({ first in defer { first = true }; return !first }) else { return }
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline,
                    !["a.pid", "b.pid"].allSatisfy({ Self.hasContent(directory.appendingPathComponent($0)) })
                {
                    usleep(10_000)
                }
                kill(process.processIdentifier, SIGINT)
                // The second Ctrl-C once the first has been acted on.
                while Date() < deadline, !seen.value.contains("Interrupted: stopping") { usleep(10_000) }
                secondSent.mutate { $0 = Date() }
                kill(process.processIdentifier, SIGINT)
            }
        }
        XCTAssertEqual(result.status, 130, result.output + result.errors)
        let afterSecond = Date().timeIntervalSince(try XCTUnwrap(secondSent.value))
        XCTAssertLessThan(afterSecond, 5, "steps waited for the grace period")
        XCTAssertTrue(result.output.contains("Interrupted again: killed the processes of 2 running step(s) at once"), result.output)
        for name in ["a.pid", "b.pid"] {
            let pid = try XCTUnwrap(Int32(try read(name).trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertFalse(Self.isAlive(pid), "\(name) outlived steps")
        }
    }
}
