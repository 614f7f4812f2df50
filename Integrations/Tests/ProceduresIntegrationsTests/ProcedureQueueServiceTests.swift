import Foundation
import Logging
import Procedures
import ProceduresLifecycle
import ProceduresTesting
import ServiceLifecycle
import XCTest

/// A `ProcedureQueueService` in a `ServiceGroup`: on graceful shutdown it refuses new work,
/// lets what it accepted finish, and cancels what is left after its grace period. The grace
/// period runs on a `ManualClock`; one test sends a real SIGTERM.
final class ProcedureQueueServiceTests: XCTestCase {
    private let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `group` on a task of its own; the expectation is fulfilled when `run()` returned
    /// without throwing.
    private func running(_ group: ServiceGroup) -> XCTestExpectation {
        let stopped = expectation(description: "the service group stopped")
        Task {
            do {
                try await group.run()
                stopped.fulfill()
            } catch {
                XCTFail("the service group failed: \(error)")
            }
        }
        return stopped
    }

    func testOnShutdownItRefusesNewWorkAndFinishesWhatItAccepted() {
        let clock = ManualClock()
        let service = ProcedureQueueService(gracePeriod: 30, clock: clock)
        let busy = TestProcedure(name: "busy", delay: 10, clock: clock)
        let next = TestProcedure(name: "next")
        next.addDependency(busy)
        service.queue.addOperations([busy, next], waitUntilFinished: false)
        waitUntilScheduled(on: clock)  // `busy` is at work

        let group = ServiceGroup(services: [service], logger: quiet)
        let stopped = running(group)
        Task { await group.triggerGracefulShutdown() }
        waitUntilScheduled(on: clock, count: 2)  // the grace period began: the queue refuses work

        let late = TestProcedure(name: "late")
        service.queue.addOperation(late)
        wait(for: late)
        assertProcedureCancelled(late, withErrors: true)
        XCTAssertFalse(late.didExecute)
        XCTAssertEqual(late.errors.first as? ProcedureQueueServiceError, .shuttingDown)
        XCTAssertFalse(busy.isFinished, "still draining")

        clock.advance(by: 10)  // `busy` is done; `next` runs; the queue is empty
        wait(for: [stopped], timeout: 10)
        assertProcedureFinished(busy)
        assertProcedureFinished(next)
        XCTAssertEqual(clock.pendingDeadlines, [], "the grace period's deadline was dropped")
    }

    func testWhatIsLeftWhenTheGracePeriodEndsIsCancelled() {
        let clock = ManualClock()
        let service = ProcedureQueueService(gracePeriod: 30, clock: clock)
        let slow = TestProcedure(name: "slow", delay: 60, clock: clock)
        let next = TestProcedure(name: "next")
        next.addDependency(slow)
        service.queue.addOperations([slow, next], waitUntilFinished: false)
        waitUntilScheduled(on: clock)

        let group = ServiceGroup(services: [service], logger: quiet)
        let stopped = running(group)
        Task { await group.triggerGracefulShutdown() }
        waitUntilScheduled(on: clock, count: 2)  // the grace period (30) and `slow`'s minute (60)

        clock.advance(by: 29)
        XCTAssertFalse(slow.isCancelled, "a second early")
        clock.advance(by: 1)
        wait(for: [stopped], timeout: 10)
        assertProcedureCancelled(slow)
        assertProcedureCancelled(next)
        XCTAssertTrue(slow.didExecute)
        XCTAssertFalse(next.didExecute)
        XCTAssertEqual(clock.now, 30)
    }

    func testAnEmptyQueueStopsAtOnce() {
        let clock = ManualClock()
        let service = ProcedureQueueService(gracePeriod: 30, clock: clock)
        let group = ServiceGroup(services: [service], logger: quiet)
        let stopped = running(group)
        Task { await group.triggerGracefulShutdown() }
        wait(for: [stopped], timeout: 10)
        XCTAssertEqual(clock.now, 0)
        XCTAssertEqual(clock.pendingDeadlines, [])
    }

    func testCancellingItsTaskCancelsTheWorkAndReturnsAtOnce() {
        let clock = ManualClock()
        let service = ProcedureQueueService(gracePeriod: 30, clock: clock)
        let endless = TestProcedure(name: "endless", delay: .infinity, clock: clock)
        service.queue.addOperation(endless)
        let returned = expectation(description: "run() returned")
        let run = Task {
            try await service.run()
            returned.fulfill()
        }
        run.cancel()
        wait(for: [returned], timeout: 10)
        wait(for: endless)
        assertProcedureCancelled(endless)

        let late = BlockProcedure {}
        service.queue.addOperation(late)
        wait(for: late)
        XCTAssertEqual(late.errors.first as? ProcedureQueueServiceError, .shuttingDown)
    }

    func testRunningTwiceThrows() {
        let service = ProcedureQueueService(gracePeriod: 30, clock: ManualClock())
        let outcome = expectation(description: "the second run() threw")
        Task {
            let first = Task { try await service.run() }
            first.cancel()
            try await first.value
            do {
                try await service.run()
                XCTFail("a second run() returned")
            } catch {
                XCTAssertEqual(error as? ProcedureQueueServiceError, .alreadyRun)
            }
            outcome.fulfill()
        }
        wait(for: [outcome], timeout: 10)
    }

    func testWorkAddedAsTheShutdownBeginsIsEitherDrainedOrRefused() {
        // Threads keep adding while the shutdown begins. When run() returns, every procedure
        // added by then has finished (drained) or was refused (cancelled with .shuttingDown,
        // before it could start); none runs after.
        let scale = ProcessInfo.processInfo.environment["PROCEDURES_STRESS_SCALE"].flatMap(Double.init) ?? 1
        let perThread = max(20, Int(1_000 * scale))
        let threadCount = 4
        let service = ProcedureQueueService(gracePeriod: 30, clock: ManualClock())
        service.queue.maxConcurrentOperationCount = 4
        let tally = Tally()
        let begun = expectation(description: "every thread added a quarter of its procedures")
        begun.expectedFulfillmentCount = threadCount
        let added = expectation(description: "every thread added all of its procedures")
        added.expectedFulfillmentCount = threadCount
        for _ in 0..<threadCount {
            Thread {
                for index in 0..<perThread {
                    let procedure = BlockProcedure { tally.executed() }
                    service.queue.addOperation(procedure)
                    tally.added(procedure)
                    if index == perThread / 4 { begun.fulfill() }
                }
                added.fulfill()
            }.start()
        }
        // The service's run() inside a service of the test's, which looks the moment it returns.
        let watched = ClosureService {
            try await service.run()
            tally.stop()
        }
        let group = ServiceGroup(services: [watched], logger: quiet)
        let stopped = running(group)
        wait(for: [begun], timeout: 60)
        Task { await group.triggerGracefulShutdown() }
        wait(for: [stopped, added], timeout: 60)
        let procedures = tally.procedures
        wait(forAll: procedures, timeout: 60)

        XCTAssertEqual(tally.unsettledAtStop, [], "procedures neither finished nor refused when run() returned")
        XCTAssertEqual(tally.executedAfterStop, 0, "procedures ran after run() returned")
        let refused = procedures.filter { $0.errors.first as? ProcedureQueueServiceError == .shuttingDown }
        XCTAssertEqual(refused.count + tally.executedCount, threadCount * perThread)
        XCTAssertTrue(refused.allSatisfy { $0.isCancelled })
    }

    func testASIGTERMLetsTheAcceptedWorkFinishBeforeTheGroupStops() {
        // Real time and a real signal: the one smoke test of the wiring. (The service group
        // leaves SIGTERM trapped for the rest of the process, which these tests do not mind:
        // giving it back its default would drop the handler the next group relies on.)
        let service = ProcedureQueueService(gracePeriod: 20)
        let started = expectation(description: "the service group runs (its signal handlers are set)")
        let probe = ClosureService {
            started.fulfill()
            try await gracefulShutdown()
        }
        let group = ServiceGroup(services: [probe, service], gracefulShutdownSignals: [.sigterm], logger: quiet)
        let stopped = running(group)
        wait(for: [started], timeout: 10)

        let work = TestProcedure(name: "work", delay: 0.5)
        let next = TestProcedure(name: "next")
        next.addDependency(work)
        service.queue.addOperations([work, next], waitUntilFinished: false)
        let began = Date()
        kill(getpid(), SIGTERM)  // as an orchestrator stopping the process does
        wait(for: [stopped], timeout: 15)
        assertProcedureFinished(work)
        assertProcedureFinished(next)
        XCTAssertLessThan(Date().timeIntervalSince(began), 15, "well within the grace period")
    }
}

/// What the stress test counts, from any thread.
private final class Tally: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var all: [Procedure] = []
    private var ran = 0
    private var ranAfterStop = 0
    private var hasStopped = false
    private var unsettled: [String] = []

    var procedures: [Procedure] { lock.withLock { all } }
    var executedCount: Int { lock.withLock { ran } }
    var executedAfterStop: Int { lock.withLock { ranAfterStop } }
    var unsettledAtStop: [String] { lock.withLock { unsettled } }

    /// `procedure` was added (its `addOperation` returned).
    func added(_ procedure: Procedure) { lock.withLock { all.append(procedure) } }

    /// run() returned: every procedure added so far must have finished or been refused.
    func stop() {
        let added = lock.withLock { () -> [Procedure] in
            hasStopped = true
            return all
        }
        let open = added.filter { !$0.isFinished && !$0.isCancelled }.map { $0.name ?? "a procedure" }
        lock.withLock { unsettled = open }
    }

    func executed() {
        lock.withLock {
            ran += 1
            if hasStopped { ranAfterStop += 1 }
        }
    }
}
