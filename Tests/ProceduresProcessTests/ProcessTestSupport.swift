import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// True while a process with this id exists — running or a zombie nobody reaped yet
/// (`kill(pid, 0)` answers for both, so "false" means it is gone and was reaped).
func processExists(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
}

extension XCTestCase {
    /// Starts `procedure` (whose standard output is `.lines`), waits for its first line, and
    /// returns that line: the program has started and said something.
    func firstLine(of procedure: ProcessProcedure, on queue: ProcedureQueue, timeout: TimeInterval = 10,
                   file: StaticString = #filePath, line: UInt = #line) -> String? {
        let first = LockedBox<String?>(nil)
        let seen = expectation(description: "first line")
        procedure.standardOutputLines.onSuccess(context: .immediate) { text in
            let isFirst = first.mutate { value -> Bool in
                defer { if value == nil { value = text } }
                return value == nil
            }
            if isFirst { seen.fulfill() }
        }
        queue.addOperation(procedure)
        wait(for: [seen], timeout: timeout)
        return first.value
    }
}

extension XCTestCase {
    /// Asserts that `pid` (not our child, so not ours to reap) is dead — gone, or a zombie
    /// waiting for init — within `timeout`. A process that was sent SIGKILL is not gone the
    /// instant the signal is sent, so this watches, on a timer, rather than looking once.
    func assertDies(_ pid: Int32, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let dead = expectation(description: "pid \(pid) dead")
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler {
            if !processExists(pid) || isZombie(pid) {
                timer.cancel()
                dead.fulfill()
            }
        }
        timer.schedule(deadline: .now(), repeating: .milliseconds(5))
        timer.resume()
        let result = XCTWaiter().wait(for: [dead], timeout: timeout)
        timer.cancel()
        XCTAssertEqual(result, .completed, "pid \(pid) is still alive \(timeout) s later", file: file, line: line)
    }
}

/// The state letter of `pid` in `/proc/PID/stat` ("R" running, "S" sleeping, "T" stopped, "Z"
/// zombie…), or nil if it is gone.
func processState(_ pid: Int32) -> Character? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = status.lastIndex(of: ")")
    else { return nil }
    return status[status.index(close, offsetBy: 2)]
}

extension XCTestCase {
    /// Waits, watching on a timer, until `pid` is (or, with `isStopped: false`, is no longer)
    /// stopped by a signal: the kernel acts on SIGSTOP and SIGCONT a moment after they are sent.
    func waitUntil(_ pid: Int32, isStopped: Bool, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) {
        let reached = expectation(description: "pid \(pid) \(isStopped ? "stopped" : "running")")
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler {
            if (processState(pid) == "T") == isStopped {
                timer.cancel()
                reached.fulfill()
            }
        }
        timer.schedule(deadline: .now(), repeating: .milliseconds(5))
        timer.resume()
        let result = XCTWaiter().wait(for: [reached], timeout: timeout)
        timer.cancel()
        XCTAssertEqual(result, .completed, "pid \(pid) state \(processState(pid).map(String.init) ?? "gone")", file: file, line: line)
    }
}
