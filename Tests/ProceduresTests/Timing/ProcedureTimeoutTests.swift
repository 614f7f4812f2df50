import Foundation
import ProceduresTesting
import XCTest

/// `timeout(after:)`: the procedure keeps its first timeout itself; what it promises is what a
/// `TimeoutObserver` promises.
final class ProcedureTimeoutTests: MisuseRecordingTestCase {
    private static func timedOutIntervals(_ procedure: Procedure) -> [TimeInterval] {
        procedure.errors.compactMap { error in
            if case ProcedureError.timedOut(let interval) = error { return interval }
            return nil
        }
    }

    func testEveryTimeoutAskedForHoldsAndTheEarliestCancelsOnce() {
        for intervals in [[100.0, 5], [5, 100], [5, 5, 6]] {
            let clock = ManualClock()
            let slow = TestProcedure(delay: 60, clock: clock)
            for interval in intervals { slow.timeout(after: interval, clock: clock) }
            ProcedureQueue().addOperation(slow)
            waitUntilScheduled(on: clock, count: intervals.count + 1)
            clock.advance(by: 5)
            wait(for: slow)
            assertProcedureCancelled(slow, withErrors: true)
            XCTAssertEqual(Self.timedOutIntervals(slow), [5], "\(intervals)")
            XCTAssertEqual(clock.pendingDeadlines, [60], "\(intervals): the timeouts that did not fire are gone")
        }
    }

    func testTheTimeoutIsArmedBeforeTheWillExecuteObservers() {
        let clock = ManualClock()
        let procedure = TestProcedure(delay: 60, clock: clock)
        let pendingAtWillExecute = LockedBox<[TimeInterval]?>(nil)
        procedure.addWillExecuteBlockObserver { _ in
            let pending = clock.pendingDeadlines
            pendingAtWillExecute.mutate { $0 = pending }
        }
        procedure.timeout(after: 5, clock: clock)
        ProcedureQueue().addOperation(procedure)
        waitUntilScheduled(on: clock, count: 2)
        XCTAssertEqual(pendingAtWillExecute.value, [5])
        clock.advance(by: 60)
        wait(for: procedure)
    }

    func testANaNIntervalIsReportedAboutTheProcedureAndAddsNoTimeout() {
        let clock = ManualClock()
        let procedure = TestProcedure(delay: 1, clock: clock).timeout(after: .nan, clock: clock)
        XCTAssertEqual(misuse.kinds(about: procedure), [.invalidDelay])
        ProcedureQueue().addOperation(procedure)
        waitUntilScheduled(on: clock)
        XCTAssertEqual(clock.pendingDeadlines, [1], "only the procedure's own work")
        clock.advance(by: 1)
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    /// Runs until cancelled; nothing but its timeout refers to it once started.
    private final class RunsUntilCancelled: Procedure, @unchecked Sendable {
        override func execute() {}
        override func procedureDidCancel(withErrors errors: [any Error]) { finish() }
    }

    func testAProcedureStartedByHandIsKeptAliveByItsArmedTimeoutUntilItFires() {
        let clock = ManualClock()
        let finished = XCTestExpectation(description: "finished")
        let intervals = LockedBox<[TimeInterval]>([])
        weak var weakProcedure: RunsUntilCancelled?
        do {
            let procedure = RunsUntilCancelled().timeout(after: 5, clock: clock)
            procedure.addDidFinishBlockObserver { procedure, _ in
                let timedOut = Self.timedOutIntervals(procedure)
                intervals.mutate { $0 = timedOut }
                finished.fulfill()
            }
            weakProcedure = procedure
            procedure.start()
        }
        waitUntilScheduled(on: clock)
        XCTAssertNotNil(weakProcedure, "the armed timeout holds it")
        clock.advance(by: 5)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(intervals.value, [5])
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }

    func testAGroupThatTimesOutCancelsItsChildrenAndFinishesWithTheTimeout() {
        let clock = ManualClock()
        let children = [TestProcedure(name: "a", delay: 60, clock: clock), TestProcedure(name: "b", delay: 60, clock: clock)]
        let group = GroupProcedure(operations: children).timeout(after: 5, clock: clock)
        ProcedureQueue().addOperation(group)
        // The group's timeout and both children's work.
        waitUntilScheduled(on: clock, count: 3)
        clock.advance(by: 5)
        wait(for: group)
        XCTAssertEqual(Self.timedOutIntervals(group), [5])
        XCTAssertTrue(children.allSatisfy(\.isCancelled))
        XCTAssertEqual(clock.pendingDeadlines, [60, 60], "the timeout is gone; the children's own work is not ours")
    }
}
