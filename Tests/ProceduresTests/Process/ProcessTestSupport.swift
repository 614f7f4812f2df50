import Foundation
import Procedures
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
