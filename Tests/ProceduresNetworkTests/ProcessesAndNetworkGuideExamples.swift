import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures
import ProceduresNetwork
import ProceduresProcess
import ProceduresTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// The example of Documentation/ProcessesAndNetwork.md, compiled and run against the loopback
// server: download a file, run a program on it, cancel both with one Ctrl-C.

/// Downloads `url` to `file` (trying up to 4 times while the server or the network fails
/// transiently), then runs `program` with `arguments` followed by the file's path. The program
/// runs only if the download succeeded. Cancel the group to stop whichever is running.
func downloadThenRun(
    _ url: URL, to file: URL, program: String, arguments: [String], session: URLSession
) -> (job: GroupProcedure, program: ProcessProcedure) {
    let download = NetworkProcedure(maxAttempts: 4, wait: .exponential(initial: 0.2, maximum: 5, jitter: .full)) {
        NetworkDownloadProcedure(session: session, request: URLRequest(url: url), destination: file)
    }
    let run = ProcessProcedure(executable: program, arguments: arguments + [file.path])
    run.addDependency(download)
    // Before the program may start: no file, no program.
    download.addWillFinishBlockObserver { _, errors in
        if !errors.isEmpty { run.cancel() }
    }
    return (GroupProcedure(operations: [download, run]), run)
}

final class ProcessesAndNetworkGuideExamples: NetworkTestCase {
    /// The queue Ctrl-C cancels, set up once for the test process as a command-line tool
    /// would (the trap stays in place for the rest of the process).
    private static let interruptible: (queue: ProcedureQueue, trap: SignalTrap) = {
        let queue = ProcedureQueue()
        let ctrlC = queue.cancelAllOperations(onSignals: [SIGINT, SIGTERM])
        return (queue, ctrlC)
    }()
    private static var interruptibleQueue: ProcedureQueue { interruptible.queue }
    private static var interrupt: SignalTrap { interruptible.trap }
    private var file: URL!

    /// Sets the trap up (once) and waits until a signal sent from now on is seen.
    private func waitUntilCtrlCIsTrapped() {
        let armed = expectation(description: "Ctrl-C trapped")
        Self.interrupt.whenArmed { armed.fulfill() }
        wait(for: [armed], timeout: 10)
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        file = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString).txt")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: file)
        super.tearDown()
    }

    func testFetchABody() {
        let url = server.url("/bytes/5")
        let queue = ProcedureQueue()
        let fetch = NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url))
        queue.addOperation(fetch)
        // … once it finished: fetch.output?.payload (Data), fetch.output?.statusCode
        wait(for: fetch)
        XCTAssertEqual(fetch.output?.payload.count, 5)
        XCTAssertEqual(fetch.output?.statusCode, 200)
    }

    func testDownloadProgressInBytes() {
        let url = server.url("/bytes/300000")
        let queue = ProcedureQueue()
        let final = XCTestExpectation(description: "final update")
        let counting = ProgressReportingSession()
        let download = NetworkDownloadProcedure(session: counting, request: URLRequest(url: url))
        download.observeProgress { update in
            print("\(update.completedUnitCount) of \(update.totalUnitCount) bytes")
        }
        queue.addOperation(download)
        download.observeProgress { update in if update.isFinal { final.fulfill() } }
        wait(for: [final], timeout: 10)
        XCTAssertEqual(download.currentProgress.completedUnitCount, 300_000)
        XCTAssertEqual(download.currentProgress.totalUnitCount, 300_000)
        if let file = download.output?.payload { try? FileManager.default.removeItem(at: file) }
        counting.invalidate()
    }

    func testDownloadThenRunAProgramOnTheFile() {
        let (job, program) = downloadThenRun(
            server.url("/lines/42"), to: file, program: "wc", arguments: ["-l"], session: session)
        wait(for: job)
        assertProcedureFinished(job)
        XCTAssertEqual(program.output?.standardOutputString, "42 \(file.path)\n")
    }

    func testAFlakyDownloadIsRetriedBeforeTheProgramRuns() {
        let (job, program) = downloadThenRun(
            server.url("/flaky/report/3"), to: file, program: "cat", arguments: [], session: session)
        wait(for: job)
        assertProcedureFinished(job)
        XCTAssertEqual(server.requestCount("/flaky/report/3"), 3)
        XCTAssertEqual(program.output?.standardOutputString, "ok after 3")
    }

    func testAFailedDownloadRunsNoProgram() {
        let url = server.url("/lines/1")
        server.stop()
        let (job, program) = downloadThenRun(url, to: file, program: "wc", arguments: ["-l"], session: session)
        wait(for: job)
        XCTAssertTrue(job.failed)
        XCTAssertTrue(program.isCancelled)
        XCTAssertNil(program.processIdentifier, "no program was started")
    }

    func testCtrlCDuringTheDownloadCancelsTheJob() {
        let (job, program) = downloadThenRun(
            server.url("/delay/20000"), to: file, program: "wc", arguments: ["-l"], session: session)
        waitUntilCtrlCIsTrapped()
        Self.interruptibleQueue.addOperation(job)
        waitUntil("the server has the request") { [server] in server!.requestCount("/delay/20000") == 1 }
        kill(getpid(), SIGINT)  // what the terminal sends on Ctrl-C
        wait(for: job, timeout: 10)
        XCTAssertTrue(job.isCancelled)
        XCTAssertNil(program.processIdentifier)
    }

    func testCtrlCWhileTheProgramRunsStopsIt() throws {
        // The "program" here sleeps, so the interrupt surely lands while it runs.
        let (job, program) = downloadThenRun(
            server.url("/lines/3"), to: file, program: "/bin/sh", arguments: ["-c", "sleep 1000", "sh"],
            session: session)
        waitUntilCtrlCIsTrapped()
        Self.interruptibleQueue.addOperation(job)
        waitUntil("the program runs") { program.processIdentifier != nil }
        let pid = try XCTUnwrap(program.processIdentifier)
        kill(getpid(), SIGINT)
        wait(for: job, timeout: 10)
        XCTAssertTrue(job.isCancelled)
        XCTAssertTrue(program.isCancelled)
        XCTAssertFalse(kill(pid, 0) == 0, "the program outlived Ctrl-C")
    }
}
