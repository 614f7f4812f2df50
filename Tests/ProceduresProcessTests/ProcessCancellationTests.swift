import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import ProceduresTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class ProcessCancellationTests: XCTestCase {
    private var queue: ProcedureQueue!

    override func setUp() {
        super.setUp()
        queue = ProcedureQueue()
    }

    override func tearDown() {
        queue = nil
        super.tearDown()
    }

    /// A procedure running `sh -c script` whose first output line has been read.
    private func started(_ script: String, grace: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line)
        -> (ProcessProcedure, firstLine: String?)
    {
        let procedure = ProcessProcedure(
            shellCommand: script, standardOutput: .lines, terminationGracePeriod: grace)
        let first = firstLine(of: procedure, on: queue, file: file, line: line)
        return (procedure, first)
    }

    func testCancelledBeforeItStartsNoProcessIsStarted() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("started-\(UUID().uuidString)")
        let procedure = ProcessProcedure(executable: "touch", arguments: [marker.path])
        procedure.cancel()
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
        XCTAssertNil(procedure.processIdentifier)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path), "the program ran")
    }

    func testLineStreamsOfAProcedureCancelledBeforeItStartsFinish() {
        let procedure = ProcessProcedure(shellCommand: "echo never", standardOutput: .lines, standardError: .lines)
        let finished = expectation(description: "both line streams finished")
        finished.expectedFulfillmentCount = 2
        procedure.standardOutputLines.onFinish(context: .immediate) { finished.fulfill() }
        procedure.standardErrorLines.onFinish(context: .immediate) { finished.fulfill() }
        procedure.cancel()
        wait(for: procedure, on: queue)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(procedure.standardOutputLines.bufferedResults.count, 0)
    }

    func testCancelledSleepLeavesNoProcess() throws {
        let (procedure, _) = started("echo started; exec sleep 1000")
        let pid = try XCTUnwrap(procedure.processIdentifier)
        XCTAssertTrue(processExists(pid))
        let began = Date()
        procedure.cancel()
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
        XCTAssertLessThan(Date().timeIntervalSince(began), 10, "SIGTERM, not the 30 s grace period, stopped it")
        XCTAssertFalse(processExists(pid), "pid \(pid) survived its cancelled procedure (or was not reaped)")
        XCTAssertNil(procedure.output, "a cancelled procedure has no output")
    }

    func testCancellingStopsWhatTheProgramStartedInItsGroup() throws {
        // The shell waits for a child of its own: SIGTERM to the shell alone would leave it.
        let (procedure, first) = started("sleep 1000 & echo $!; wait")
        let grandchild = try XCTUnwrap(first.flatMap { Int32($0) })
        procedure.cancel()
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
        assertDies(grandchild)
    }

    /// The real-time smoke test of the grace period (the manual-clock test checks the timing).
    func testAProgramIgnoringSIGTERMIsKilledAfterTheGracePeriod() throws {
        let (procedure, _) = started("trap '' TERM; echo ready; while :; do sleep 0.05; done", grace: 0.3)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        let began = Date()
        procedure.cancel()
        wait(for: procedure, on: queue)
        let elapsed = Date().timeIntervalSince(began)
        assertProcedureCancelled(procedure)
        XCTAssertGreaterThanOrEqual(elapsed, 0.25, "it ignored SIGTERM, so only SIGKILL after the grace period stops it")
        XCTAssertFalse(processExists(pid))
    }

    func testSIGKILLComesWhenTheGracePeriodEndsOnTheClock() throws {
        let clock = ManualClock()
        let procedure = ProcessProcedure(
            shellCommand: "trap '' TERM; echo ready; while :; do sleep 0.05; done", standardOutput: .lines,
            terminationGracePeriod: 60, clock: clock)
        _ = firstLine(of: procedure, on: queue)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        procedure.cancel()
        waitUntilScheduled(on: clock)  // SIGTERM sent (and ignored); SIGKILL waits for the clock
        XCTAssertEqual(clock.pendingDeadlines, [60])
        XCTAssertFalse(procedure.isFinished, "the program ignores SIGTERM, so it still runs")
        XCTAssertTrue(processExists(pid))
        advance(clock, by: 60)
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(processExists(pid))
    }

    func testCancellingAStoppedProgramEndsItWithoutWaitingForTheGracePeriod() throws {
        // A stopped program (SIGSTOP, Ctrl-Z, a debugger) keeps SIGTERM pending until it is
        // continued. The grace period is on a clock nobody advances: only SIGTERM can end it.
        let clock = ManualClock()
        let procedure = ProcessProcedure(
            shellCommand: "echo ready; exec sleep 1000", standardOutput: .lines, terminationGracePeriod: 60,
            clock: clock)
        _ = firstLine(of: procedure, on: queue)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        kill(pid, SIGSTOP)
        waitUntil(pid, isStopped: true)
        procedure.cancel()
        wait(for: procedure, on: queue)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(processExists(pid))
    }

    func testTheProcedureFinishesOnlyOnceTheChildHasExited() throws {
        // The program takes its time to exit after SIGTERM; the procedure must wait for it.
        let (procedure, _) = started("trap 'sleep 0.3; exit 0' TERM; echo ready; while :; do sleep 0.05; done")
        let pid = try XCTUnwrap(procedure.processIdentifier)
        let aliveAtFinish = LockedBox<Bool?>(nil)
        procedure.addDidFinishBlockObserver { _, _ in aliveAtFinish.mutate { $0 = processExists(pid) } }
        procedure.cancel()
        wait(for: procedure, on: queue)
        XCTAssertEqual(aliveAtFinish.value, false)
    }

    func testCancellingAGroupStopsItsProcesses() throws {
        let sleeper = ProcessProcedure(shellCommand: "echo up; exec sleep 1000", standardOutput: .lines)
        let up = expectation(description: "child started")
        sleeper.standardOutputLines.onSuccess(context: .immediate) { _ in up.fulfill() }
        let group = GroupProcedure(operations: [sleeper])
        queue.addOperation(group)
        wait(for: [up], timeout: 10)
        let pid = try XCTUnwrap(sleeper.processIdentifier)
        group.cancel()
        wait(for: group, on: queue)
        XCTAssertTrue(sleeper.isCancelled)
        XCTAssertTrue(sleeper.isFinished)
        XCTAssertFalse(processExists(pid))
    }

    func testChildStartsWithDefaultSignalsWhenTheParentIgnoresThem() throws {
        // A command-line tool handling Ctrl-C through a DispatchSource ignores SIGINT; an
        // ignored disposition survives exec unless the spawn resets it.
        let previousInt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInt)
            signal(SIGQUIT, previousQuit)
        }
        let procedure = ProcessProcedure(executable: "grep", arguments: ["-E", "^Sig(Ign|Blk):", "/proc/self/status"])
        wait(for: procedure, on: queue)
        assertProcedureFinished(procedure)
        let masks = (procedure.output?.standardOutputString ?? "").split(separator: "\n").map {
            UInt64($0.split(separator: "\t").last ?? "", radix: 16)
        }
        // Signals 32 and 33 are glibc's own (thread cancellation, set-id broadcast): glibc's
        // posix_spawn leaves them ignored and every glibc program reinstalls them. Every other
        // signal must be neither blocked nor ignored.
        let glibcInternal: UInt64 = 1 << 31 | 1 << 32
        XCTAssertEqual(masks.map { $0.map { $0 & ~glibcInternal } }, [0, 0], procedure.output?.standardOutputString ?? "")
    }

    func testChildStartsWithAnEmptySignalMaskWhenTheSpawningThreadBlocksSignals() throws {
        let procedure = ProcessProcedure(executable: "grep", arguments: ["^SigBlk:", "/proc/self/status"])
        let finished = expectation(description: "finished")
        procedure.addDidFinishBlockObserver { _, _ in finished.fulfill() }
        // Started by hand on a thread that blocks SIGTERM and SIGINT, so execute() (and the
        // spawn) runs with that mask.
        let thread = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            sigaddset(&blocked, SIGINT)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            procedure.start()
        }
        thread.start()
        wait(for: [finished], timeout: 10)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "SigBlk:\t0000000000000000\n")
    }

    func testSIGINTIgnoredInTheParentStillLetsACancelledChildDieOfSIGTERM() throws {
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        // The child reports on SIGTERM, so its death is by SIGTERM and not the later SIGKILL.
        let procedure = ProcessProcedure(
            shellCommand: "trap 'echo got-TERM; exit 143' TERM; echo ready; while :; do sleep 0.05; done",
            standardOutput: .lines, terminationGracePeriod: 30)
        let lines = LockedBox<[String]>([])
        procedure.standardOutputLines.onSuccess(context: .immediate) { line in lines.mutate { $0.append(line) } }
        _ = firstLine(of: procedure, on: queue)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        let began = Date()
        procedure.cancel()
        wait(for: procedure, on: queue)
        XCTAssertLessThan(Date().timeIntervalSince(began), 10)
        XCTAssertEqual(lines.value, ["ready", "got-TERM"])
        XCTAssertFalse(processExists(pid))
    }

    func testCancelRacingTheExitStillFinishesOnceAndLeavesNoProcess() {
        let count = stressIterations(200)
        let procedures = (0..<count).map { _ in ProcessProcedure(executable: "/bin/true") }
        queue.maxConcurrentOperationCount = 8
        queue.addOperations(procedures, waitUntilFinished: false)
        for procedure in procedures { DispatchQueue.global().async { procedure.cancel() } }
        wait(forAll: procedures, on: queue, timeout: 60)
        for procedure in procedures {
            XCTAssertTrue(procedure.isFinished)
            if let pid = procedure.processIdentifier { XCTAssertFalse(processExists(pid), "pid \(pid) left behind") }
        }
    }
}
