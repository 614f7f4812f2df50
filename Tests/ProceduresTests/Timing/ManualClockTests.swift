import Foundation
import ProceduresTesting
import XCTest

final class ManualClockTests: MisuseRecordingTestCase {
    func testAdvanceRunsDueCallbacksInDeadlineOrderEachAtItsOwnTime() {
        let clock = ManualClock()
        let ran = LockedBox<[String]>([])
        for (name, deadline) in [("c", 3.0), ("a", 1.0), ("b", 2.0), ("later", 10.0)] {
            _ = clock.schedule(at: deadline) { ran.mutate { $0.append("\(name)@\(clock.now)") } }
        }
        clock.advance(by: 5)
        XCTAssertEqual(ran.value, ["a@1.0", "b@2.0", "c@3.0"])
        XCTAssertEqual(clock.now, 5)
        XCTAssertEqual(clock.pendingDeadlines, [10])
    }

    func testCallbacksDueAtTheSameTimeRunInTheOrderTheyWereScheduled() {
        let clock = ManualClock()
        let ran = LockedBox<[Int]>([])
        for index in 0..<20 { _ = clock.schedule(at: 1) { ran.mutate { $0.append(index) } } }
        clock.advance(to: 1)
        XCTAssertEqual(ran.value, Array(0..<20))
    }

    func testCallbackScheduledByACallbackRunsInTheSameAdvanceWhenDueWithinIt() {
        let clock = ManualClock()
        let ran = LockedBox<[TimeInterval]>([])
        _ = clock.schedule(at: 1) {
            ran.mutate { $0.append(clock.now) }
            _ = clock.schedule(after: 2) { ran.mutate { $0.append(clock.now) } }
            _ = clock.schedule(after: 10) { ran.mutate { $0.append(clock.now) } }
        }
        clock.advance(to: 4)
        XCTAssertEqual(ran.value, [1, 3])
        XCTAssertEqual(clock.pendingDeadlines, [11])
    }

    func testCancelledCallbackNeverRunsAndLeavesNothingPending() {
        let clock = ManualClock()
        let ran = LockedBox(false)
        let handle = clock.schedule(at: 1) { ran.mutate { $0 = true } }
        handle.cancel()
        handle.cancel()  // harmless twice
        clock.advance(by: 2)
        XCTAssertFalse(ran.value)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }

    func testCancellingManyInAnyOrderKeepsTheRestInDeadlineOrder() {
        let clock = ManualClock()
        let ran = LockedBox<[Int]>([])
        var random = StressRandom(seed: 42)
        let deadlines = (0..<500).map { _ in Double(Int.random(in: 1...100, using: &random)) }
        let handles = deadlines.enumerated().map { index, deadline in
            clock.schedule(at: deadline) { ran.mutate { $0.append(index) } }
        }
        let cancelled = Set((0..<500).filter { $0 % 3 == 0 })
        for index in cancelled.shuffled(using: &random) { handles[index].cancel() }
        clock.advance(to: 100)
        let expected = (0..<500).filter { !cancelled.contains($0) }
            .sorted { (deadlines[$0], $0) < (deadlines[$1], $1) }
        XCTAssertEqual(ran.value, expected)
    }

    func testPastDeadlineRunsAtTheNextAdvance() {
        let clock = ManualClock(now: 10)
        let ran = LockedBox(0)
        _ = clock.schedule(at: 5) { ran.mutate { $0 += 1 } }
        XCTAssertEqual(ran.value, 0, "a manual clock runs nothing until it is advanced")
        clock.advance(by: 0)
        XCTAssertEqual(ran.value, 1)
        XCTAssertEqual(clock.now, 10)
    }

    func testRunUntilIdleJumpsThroughEveryDeadlineButLeavesInfiniteOnes() {
        let clock = ManualClock()
        let ran = LockedBox(0)
        _ = clock.schedule(at: 100) { ran.mutate { $0 += 1 } }
        _ = clock.schedule(at: 1) {
            ran.mutate { $0 += 1 }
            _ = clock.schedule(after: 1000) { ran.mutate { $0 += 1 } }
        }
        _ = clock.schedule(at: .infinity) { ran.mutate { $0 += 100 } }
        clock.runUntilIdle()
        XCTAssertEqual(ran.value, 3)
        XCTAssertEqual(clock.now, 1001)
        XCTAssertEqual(clock.pendingDeadlines, [.infinity])
    }

    func testMovingBackwardsIsReportedAndTimeStaysPut() {
        let clock = ManualClock(now: 5)
        clock.advance(to: 2)
        clock.advance(by: -1)
        XCTAssertEqual(clock.now, 5)
        XCTAssertEqual(misuse.kinds(about: clock), [.clockMovedBackwards, .clockMovedBackwards])
    }

    func testWhenScheduledFiresOnceWhenTheScheduleMatches() {
        let clock = ManualClock()
        let fired = LockedBox(0)
        clock.whenScheduled({ $0.count >= 2 }) { fired.mutate { $0 += 1 } }
        _ = clock.schedule(at: 1) {}
        XCTAssertEqual(fired.value, 0)
        _ = clock.schedule(at: 2) {}
        _ = clock.schedule(at: 3) {}
        XCTAssertEqual(fired.value, 1)
        clock.whenScheduled({ $0.count >= 2 }) { fired.mutate { $0 += 1 } }
        XCTAssertEqual(fired.value, 2, "a schedule that already matches fires at once")
    }

    func testAdvanceHelperWaitsForAWaitScheduledOnAnotherThread() {
        let clock = ManualClock()
        let ran = LockedBox(false)
        DispatchQueue.global().async {
            _ = clock.schedule(after: 30) { ran.mutate { $0 = true } }
        }
        advance(clock, by: 30)
        XCTAssertTrue(ran.value)
    }

    func testScheduledAsyncReturnsOnceTheScheduleMatches() async {
        let clock = ManualClock()
        DispatchQueue.global().async { _ = clock.schedule(at: 7) {} }
        await clock.scheduled { $0 == [7] }
        XCTAssertEqual(clock.nextDeadline, 7)
    }

    func testDroppedClockWithPendingCallbacksIsFreed() {
        weak var weakClock: ManualClock?
        var handle: (any Cancelable)?
        do {
            let clock = ManualClock()
            weakClock = clock
            handle = clock.schedule(at: 1) {}
        }
        XCTAssertNil(weakClock)
        handle?.cancel()  // the clock is gone: nothing to do, no crash
    }

    func testDelayProcedureWaitsOnTheManualClock() {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 60, clock: clock)
        ProcedureQueue().addOperation(delay)
        waitUntilScheduled(on: clock)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 59.9)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 0.1)
        wait(for: delay)
        assertProcedureFinished(delay)
    }

    func testCancelledDelayLeavesNothingOnItsClock() {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 60, clock: clock)
        ProcedureQueue().addOperation(delay)
        waitUntilScheduled(on: clock)
        delay.cancel()
        wait(for: delay)
        assertProcedureCancelled(delay)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }

    func testDelayUntilADateWaitsTheWallClockRemainderOnItsClock() {
        let clock = ManualClock()
        let delay = DelayProcedure(until: Date().addingTimeInterval(3600), clock: clock)
        ProcedureQueue().addOperation(delay)
        waitUntilScheduled(on: clock)
        let deadline = clock.nextDeadline ?? 0
        XCTAssertGreaterThan(deadline, 3590)
        XCTAssertLessThanOrEqual(deadline, 3600)
        clock.advance(by: 3600)
        wait(for: delay)
        assertProcedureFinished(delay)
    }
}
