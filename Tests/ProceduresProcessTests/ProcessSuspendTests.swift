import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import ProceduresTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `suspend(completion:)` and `resume(completion:)`: SIGSTOP and SIGCONT to the program's
/// process group, answered with whether the signal was sent.
final class ProcessSuspendTests: XCTestCase {
    private var queue: ProcedureQueue!

    override func setUp() {
        super.setUp()
        queue = ProcedureQueue()
    }

    override func tearDown() {
        queue = nil
        super.tearDown()
    }

    /// What `suspend` or `resume` answered.
    private func answer(_ call: (@escaping @Sendable (Bool) -> Void) -> Void, file: StaticString = #filePath, line: UInt = #line) -> Bool? {
        let answered = expectation(description: "answered")
        let result = LockedBox<Bool?>(nil)
        call { sent in
            result.mutate { $0 = sent }
            answered.fulfill()
        }
        wait(for: [answered], timeout: 10)
        return result.value
    }

    func testSuspendAndResumeBeforeTheProgramStartsAnswerFalse() {
        let procedure = ProcessProcedure(executable: "/bin/true")
        XCTAssertEqual(answer { procedure.suspend(completion: $0) }, false)
        XCTAssertEqual(answer { procedure.resume(completion: $0) }, false)
    }

    func testSuspendAndResumeAfterTheProgramExitedAnswerFalse() {
        let procedure = ProcessProcedure(executable: "/bin/echo", arguments: ["Hello World"])
        wait(for: procedure, on: queue)
        assertProcedureFinished(procedure)
        XCTAssertEqual(answer { procedure.suspend(completion: $0) }, false)
        XCTAssertEqual(answer { procedure.resume(completion: $0) }, false)
    }

    func testSuspendStopsTheProgramAndResumeContinuesIt() throws {
        // One process (the shell execs), so its state is the program's: a shell waiting for a
        // child it vforked would show "D", not "T", while that child is stopped.
        let procedure = ProcessProcedure(shellCommand: "echo ready; exec sleep 1000", standardOutput: .lines)
        _ = firstLine(of: procedure, on: queue)
        let pid = try XCTUnwrap(procedure.processIdentifier)

        XCTAssertEqual(answer { procedure.suspend(completion: $0) }, true)
        waitUntil(pid, isStopped: true)
        XCTAssertFalse(procedure.isFinished, "a suspended program is still running")

        XCTAssertEqual(answer { procedure.resume(completion: $0) }, true)
        waitUntil(pid, isStopped: false)

        procedure.cancel()
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(processExists(pid))
    }

    func testAResumedProgramRunsToItsEnd() throws {
        // The program copies a FIFO the test writes to, and exits when the test closes it.
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("suspend-\(UUID().uuidString)")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        let procedure = ProcessProcedure(
            executable: "/bin/sh", arguments: ["-c", "echo ready; exec cat \"$0\"", fifo.path], standardOutput: .lines)
        let lines = LockedBox<[String]>([])
        procedure.standardOutputLines.onSuccess(context: .immediate) { line in lines.mutate { $0.append(line) } }
        _ = firstLine(of: procedure, on: queue)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        XCTAssertEqual(answer { procedure.suspend(completion: $0) }, true)
        waitUntil(pid, isStopped: true)
        // Opening a FIFO for writing waits for its reader, which may be stopped before it
        // opened it: the writer runs on a thread of its own.
        let written = expectation(description: "written")
        Thread.detachNewThread {
            if let handle = FileHandle(forWritingAtPath: fifo.path) {
                handle.write(Data("last line\n".utf8))
                try? handle.close()
            }
            written.fulfill()
        }
        XCTAssertFalse(procedure.isFinished, "a suspended program is still running")
        XCTAssertEqual(answer { procedure.resume(completion: $0) }, true)
        wait(for: procedure, on: queue)
        wait(for: [written], timeout: 10)
        assertProcedureFinished(procedure)
        XCTAssertEqual(lines.value, ["ready", "last line"])
    }

    func testSuspendAfterCancelAnswersFalse() throws {
        let procedure = ProcessProcedure(
            shellCommand: "echo ready; exec sleep 1000", standardOutput: .lines, terminationGracePeriod: 30)
        _ = firstLine(of: procedure, on: queue)
        procedure.cancel()
        XCTAssertEqual(answer { procedure.suspend(completion: $0) }, false, "a cancelled program must stop, not freeze")
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
    }

    func testSuspendAndResumeRacingTheExitLeaveEveryProcedureFinished() {
        // Each program exits at once; the signals land before, during or after its exit and
        // reaping, and must neither hit another process nor leave one stopped.
        let count = stressIterations(200)
        let procedures = (0..<count).map { _ in ProcessProcedure(executable: "/bin/true") }
        queue.maxConcurrentOperationCount = 8
        for procedure in procedures {
            procedure.addDidExecuteBlockObserver { procedure in
                procedure.suspend { _ in procedure.resume() }
            }
        }
        wait(forAll: procedures, on: queue, timeout: 120)
        for procedure in procedures {
            assertProcedureFinished(procedure)
            if let pid = procedure.processIdentifier { XCTAssertFalse(processExists(pid), "pid \(pid) left behind") }
        }
    }
}
