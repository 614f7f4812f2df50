import Foundation
import ProceduresTesting
import XCTest

final class TimeoutObserverTests: MisuseRecordingTestCase {
    private func timedOutInterval(_ procedure: Procedure) -> TimeInterval? {
        for case ProcedureError.timedOut(let interval) in procedure.errors { return interval }
        return nil
    }

    func testTimeoutCancelsAProcedureStillRunningWithTimedOutCarryingTheInterval() {
        let clock = ManualClock()
        let slow = TestProcedure(delay: 60, clock: clock)
        slow.addObserver(TimeoutObserver(by: 5, clock: clock))
        ProcedureQueue().addOperation(slow)
        // Both the timeout (at will-execute) and the procedure's own work (in execute()).
        waitUntilScheduled(on: clock, count: 2)
        clock.advance(by: 5)
        wait(for: slow)
        assertProcedureCancelled(slow, withErrors: true)
        XCTAssertEqual(timedOutInterval(slow), 5)
        XCTAssertEqual(clock.pendingDeadlines, [60], "only the procedure's own work is left on the clock")
    }

    func testProcedureThatFinishesFirstIsNotCancelledAndItsTimeoutIsRemoved() {
        let clock = ManualClock()
        let quick = TestProcedure(delay: 2, clock: clock)
        quick.timeout(after: 5, clock: clock)
        ProcedureQueue().addOperation(quick)
        advance(clock, by: 2)
        wait(for: quick)
        assertProcedureFinished(quick)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
        clock.advance(by: 10)
        XCTAssertFalse(quick.isCancelled)
    }

    func testTimeoutStartsAtWillExecuteNotWhileWaitingForDependencies() {
        let clock = ManualClock()
        let gate = DelayProcedure(by: 100, clock: clock)
        let guarded = TestProcedure()
        guarded.addDependency(gate)
        guarded.addObserver(TimeoutObserver(by: 5, clock: clock))
        ProcedureQueue().addOperations([gate, guarded], waitUntilFinished: false)
        advance(clock, by: 100)  // the gate's delay, far beyond the timeout
        wait(for: guarded)
        assertProcedureFinished(guarded)
    }

    func testTimeoutUntilADateThatPassedWhileWaitingCancelsAtWillExecute() {
        let clock = ManualClock()
        let gate = DelayProcedure(by: 0.05)  // real time: the date is wall-clock time
        let late = TestProcedure()
        late.addDependency(gate)
        late.addObserver(TimeoutObserver(until: Date(), clock: clock))
        wait(forAll: [gate, late])
        assertProcedureCancelled(late, withErrors: true)
        XCTAssertFalse(late.didExecute)
        XCTAssertEqual(timedOutInterval(late), 0)
    }

    func testTimeoutUntilAFutureDateFiresWhenTheClockGetsThere() {
        let clock = ManualClock()
        let slow = TestProcedure(delay: 7200, clock: clock)
        slow.addObserver(TimeoutObserver(until: Date().addingTimeInterval(3600), clock: clock))
        ProcedureQueue().addOperation(slow)
        waitUntilScheduled(on: clock, count: 2)
        clock.advance(by: 3600)
        wait(for: slow)
        assertProcedureCancelled(slow, withErrors: true)
        XCTAssertEqual(timedOutInterval(slow) ?? 0, 3600, accuracy: 10)
    }

    func testZeroOrNegativeTimeoutCancelsBeforeExecute() {
        for interval in [0, -3.0] {
            let procedure = TestProcedure()
            procedure.timeout(after: interval, clock: ManualClock())
            wait(for: procedure)
            assertProcedureCancelled(procedure, withErrors: true)
            XCTAssertFalse(procedure.didExecute)
        }
    }

    func testInfiniteTimeoutSchedulesNothing() {
        let clock = ManualClock()
        let procedure = TestProcedure(delay: 1, clock: clock).timeout(after: .infinity, clock: clock)
        ProcedureQueue().addOperation(procedure)
        advance(clock, by: 1)
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testNaNTimeoutIsReportedAndNeverFires() {
        let clock = ManualClock()
        let observer = TimeoutObserver(by: .nan, clock: clock)
        XCTAssertEqual(misuse.kinds(about: observer), [.invalidDelay])
        let procedure = TestProcedure(delay: 1, clock: clock)
        procedure.addObserver(observer)
        ProcedureQueue().addOperation(procedure)
        advance(clock, by: 1)
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testOneObserverGivesEachProcedureItsOwnDeadline() {
        let clock = ManualClock()
        let observer = TimeoutObserver(by: 10, clock: clock)
        let first = TestProcedure(delay: 100, clock: clock)
        let second = TestProcedure(delay: 100, clock: clock)
        first.addObserver(observer)
        second.addObserver(observer)
        let queue = ProcedureQueue()
        queue.addOperation(first)
        waitUntilScheduled(on: clock, count: 2)
        clock.advance(by: 5)
        queue.addOperation(second)
        waitUntilScheduled(on: clock, count: 4)
        clock.advance(by: 5)
        wait(for: first)
        XCTAssertEqual(timedOutInterval(first), 10)
        XCTAssertFalse(second.isCancelled)
        clock.advance(by: 5)
        wait(for: second)
        XCTAssertEqual(timedOutInterval(second), 10)
    }

    func testProcedureCancelledOtherwiseDropsItsTimeout() {
        let clock = ManualClock()
        let procedure = TestProcedure(delay: 100, clock: clock).timeout(after: 10, clock: clock)
        ProcedureQueue().addOperation(procedure)
        waitUntilScheduled(on: clock, count: 2)
        procedure.cancel()
        wait(for: procedure)
        XCTAssertEqual(clock.pendingDeadlines, [100], "the timeout is gone; the test procedure's own timer is not ours")
        XCTAssertNil(timedOutInterval(procedure))
    }

    func testTimeoutRacingFinishEndsEitherCancelledByTheTimeoutOrCleanlyFinished() {
        // The timeout and the procedure's own finish fall due at the same moment, from two
        // threads: whichever comes first wins, and nothing else happens.
        let rounds = stressIterations(2000)
        let queue = ProcedureQueue()
        var outcomes = (timedOut: 0, finished: 0)
        for _ in 0..<rounds {
            let clock = ManualClock()
            let procedure = BlockProcedure(asyncBlock: { procedure in
                DispatchQueue.global().async { procedure.finish() }
            })
            let started = XCTestExpectation(description: "timeout scheduled")
            clock.whenScheduled({ !$0.isEmpty }) { started.fulfill() }
            procedure.timeout(after: 1, clock: clock)
            queue.addOperation(procedure)
            XCTWaiter().wait(for: [started], timeout: 10)
            DispatchQueue.global().async { clock.advance(by: 1) }
            wait(for: procedure)
            if procedure.isCancelled {
                XCTAssertEqual(timedOutInterval(procedure), 1)
                outcomes.timedOut += 1
            } else {
                XCTAssertTrue(procedure.errors.isEmpty)
                outcomes.finished += 1
            }
        }
        XCTAssertEqual(outcomes.timedOut + outcomes.finished, rounds)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    func testRealTimeTimeoutCancelsASlowProcedure() {
        let slow = TestProcedure(delay: 30).timeout(after: 0.05)
        let started = Date()
        wait(for: slow)
        assertProcedureCancelled(slow, withErrors: true)
        XCTAssertEqual(timedOutInterval(slow), 0.05)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testNeverFiringTimeoutsLeaveNothingOnTheSystemClock() {
        // Every pending timeout is one heap entry on the shared clock (no timer of its own),
        // and it goes away with its procedure.
        let before = SystemClock.shared.pendingCount
        let procedures = (0..<stressIterations(10_000)).map { _ in BlockProcedure {}.timeout(after: 3600) }
        wait(forAll: procedures)
        XCTAssertEqual(SystemClock.shared.pendingCount, before)
        XCTAssertTrue(procedures.allSatisfy { !$0.isCancelled })
    }
}

final class TimeoutMisuseTests: MisuseRecordingTestCase {
    func testTimeoutAddedToARunningProcedureIsReportedAndNotAdded() {
        let clock = ManualClock()
        let running = TestProcedure(delay: 5, clock: clock)
        ProcedureQueue().addOperation(running)
        waitUntilScheduled(on: clock)  // executing: its own work is on the clock
        running.timeout(after: 1, clock: clock)
        XCTAssertEqual(misuse.kinds(about: running), [.timeoutAddedAfterStart])
        clock.advance(by: 5)
        wait(for: running)
        assertProcedureFinished(running)
    }

    func testTimeoutAddedToAFinishedProcedureIsReported() {
        let done = TestProcedure()
        wait(for: done)
        done.timeout(after: 1)
        XCTAssertEqual(misuse.kinds(about: done), [.timeoutAddedAfterStart])
    }
}

final class SystemClockTests: XCTestCase {
    func testCallbacksRunInDeadlineOrderAndACancelledOneNever() {
        let clock = SystemClock.shared
        let before = clock.pendingCount
        let ran = LockedBox<[String]>([])
        let done = XCTestExpectation(description: "three callbacks")
        done.expectedFulfillmentCount = 3
        for (name, delay) in [("third", 0.03), ("first", 0.01), ("second", 0.02)] {
            _ = clock.schedule(after: delay) {
                ran.mutate { $0.append(name) }
                done.fulfill()
            }
        }
        let cancelled = clock.schedule(after: 0.015) { ran.mutate { $0.append("cancelled") } }
        cancelled.cancel()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(ran.value, ["first", "second", "third"])
        XCTAssertEqual(clock.pendingCount, before)
    }

    func testAnEarlierDeadlineRearmsTheSharedTimer() {
        // A far deadline arms the one timer; a nearer one scheduled later must not wait for it.
        let far = SystemClock.shared.schedule(after: 3600) {}
        let near = XCTestExpectation(description: "near callback")
        let started = Date()
        _ = SystemClock.shared.schedule(after: 0.01) { near.fulfill() }
        wait(for: [near], timeout: 10)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        far.cancel()
    }

    func testNowIsMonotonicSeconds() {
        let first = SystemClock.shared.now
        let second = SystemClock.shared.now
        XCTAssertGreaterThanOrEqual(second, first)
        XCTAssertGreaterThan(first, 0)
    }
}

/// Timeouts in the cases ProcedureKit's own tests checked.
final class TimeoutObserverCombinationTests: XCTestCase {
    func testSeveralTimeoutsOnOneProcedureCancelItOnceWithOneError() {
        let clock = ManualClock()
        let slow = TestProcedure(delay: 60, clock: clock)
        for interval in [5.0, 5, 6, 100] { slow.addObserver(TimeoutObserver(by: interval, clock: clock)) }
        ProcedureQueue().addOperation(slow)
        waitUntilScheduled(on: clock, count: 5)
        clock.advance(by: 6)
        wait(for: slow)
        assertProcedureCancelled(slow, withErrors: true)
        XCTAssertEqual(slow.errors.count, 1, "\(slow.errors)")
        XCTAssertEqual(clock.pendingDeadlines, [60], "the timeouts that did not fire are gone")
    }

    func testTimeoutOnAProcedureCancelledBeforeItRunsAddsNoError() {
        let clock = ManualClock()
        let procedure = TestProcedure(delay: 60, clock: clock)
        procedure.addObserver(TimeoutObserver(by: 5, clock: clock))
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertTrue(procedure.errors.isEmpty)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }

    func testTimeoutLongerThanTheWorkLeavesTheProcedureFinished() {
        let clock = ManualClock()
        let procedure = TestProcedure(delay: 1, clock: clock)
        procedure.addObserver(TimeoutObserver(until: Date(timeIntervalSinceNow: 3600), clock: clock))
        ProcedureQueue().addOperation(procedure)
        advance(clock, by: 1)
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }
}
