import Foundation
import Logging
import Procedures
import ProceduresLifecycle
import ProceduresTesting
import ServiceLifecycle
import XCTest

// Documentation/Server.md, verbatim.
final class ServerGuideExamples: XCTestCase {
    func testTheServerLetsItsJobsFinishOnSIGTERM() async throws {
        let logger = Logger(label: "server")  // the service group logs at debug and trace only
        let report = NightlyReport()
        // Stands in for the HTTP server; once it runs, it plays the orchestrator and sends
        // SIGTERM (the group's signal handler is set before any service runs).
        let webServer = ClosureService {
            kill(getpid(), SIGTERM)
            try await gracefulShutdown()
        }

        let jobs = ProcedureQueueService(gracePeriod: 30)
        let group = ServiceGroup(
            services: [jobs, webServer],
            gracefulShutdownSignals: [.sigterm],
            logger: logger)
        jobs.queue.addOperation(report)
        try await group.run()

        assertProcedureFinished(report)
    }

    func testTheJobsDrainOnShutdown() {
        let logger = Logger(label: "test")
        let clock = ManualClock()
        let jobs = ProcedureQueueService(gracePeriod: 30, clock: clock)
        let report = TestProcedure(name: "report", delay: 10, clock: clock)
        jobs.queue.addOperation(report)
        waitUntilScheduled(on: clock)  // the report is at work
        let group = ServiceGroup(services: [jobs], logger: logger)
        let stopped = expectation(description: "the service group stopped")
        Task {
            try await group.run()
            stopped.fulfill()
        }
        Task { await group.triggerGracefulShutdown() }
        waitUntilScheduled(on: clock, count: 2)  // the grace period began
        clock.advance(by: 10)
        wait(for: [stopped], timeout: 10)
        assertProcedureFinished(report)
    }
}

/// The guide's job: work that takes a while (a third of a second, on a timer).
final class NightlyReport: GroupProcedure, @unchecked Sendable {
    // @unchecked: no state of its own.
    init() {
        super.init(operations: [DelayProcedure(by: 0.3)])
        name = "NightlyReport"
    }
}
