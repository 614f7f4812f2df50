import Foundation
import ProceduresTesting
import XCTest

/// A retry (or repeat) waiting out its back-off gives back its slot of its queue's width:
/// other work runs during the wait, and the next attempt runs within the width once the
/// retry has a slot again.
final class RetrySlotReleaseTests: MisuseRecordingTestCase {
    /// A retry of two attempts whose first fails, waiting `seconds` on `clock` between them,
    /// and the count of attempts made.
    private func flakyRetry(
        waiting seconds: TimeInterval, on clock: ManualClock
    ) -> (RetryProcedure<TestProcedure>, LockedBox<Int>) {
        let made = LockedBox<Int>(0)
        let retry = RetryProcedure(maxAttempts: 2, wait: .constant(seconds), clock: clock) { () -> TestProcedure in
            let number = made.mutate { $0 += 1; return $0 }
            return TestProcedure(name: "attempt \(number)", error: number == 1 ? TestError("flaky") : nil)
        }
        return (retry, made)
    }

    func testASecondProcedureRunsDuringTheBackOffOfARetryOnAQueueOfWidthOne() {
        let clock = ManualClock()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let (retry, made) = flakyRetry(waiting: 60, on: clock)
        let other = TestProcedure(name: "other")
        queue.addOperation(retry)
        waitUntilScheduled(on: clock)  // the first attempt failed; the back-off runs
        queue.addOperation(other)
        wait(for: other)  // would wait forever (width 1) if the retry kept its slot
        XCTAssertFalse(retry.isFinished)
        XCTAssertEqual(clock.now, 0, "the back-off is not over")
        clock.advance(by: 60)
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(made.value, 2)
    }

    func testARetryInsideAGroupFreesTheGroupsSlotOfTheQueueDuringItsBackOff() {
        // The group's only running child waits: the group gives its queue slot back too, and
        // asks for it again before the next attempt runs.
        let clock = ManualClock()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let (retry, made) = flakyRetry(waiting: 60, on: clock)
        let group = GroupProcedure(operations: [retry])
        let other = TestProcedure(name: "other")
        queue.addOperation(group)
        waitUntilScheduled(on: clock)
        queue.addOperation(other)
        wait(for: other)  // would wait forever (width 1) if the group kept its slot
        XCTAssertFalse(group.isFinished)
        clock.advance(by: 60)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(made.value, 2)
    }

    func testTheNextAttemptWaitsForASlotAfterTheBackOff() {
        let clock = ManualClock()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let (retry, made) = flakyRetry(waiting: 1, on: clock)
        // Holds the only slot once the retry gave it back, until the clock reaches 100.
        let blocker = TestProcedure(name: "blocker", delay: 100, clock: clock)
        queue.addOperation(retry)
        waitUntilScheduled(on: clock)
        queue.addOperation(blocker)
        waitUntilScheduled(on: clock, count: 2)  // the blocker runs, and waits on the clock
        clock.advance(by: 1)  // the back-off is over; the slot is the blocker's
        XCTAssertEqual(made.value, 2, "the second attempt is made when the wait begins")
        XCTAssertEqual(retry.current?.isExecuting, false, "the second attempt waits for a slot")
        clock.advance(by: 99)
        wait(for: retry, blocker)
        assertProcedureFinished(retry)
        XCTAssertEqual(queue.maxConcurrentOperationCount, 1)
    }

    func testARetryCancelledWhileWaitingForItsSlotFinishesAndGivesNothingBackTwice() {
        let clock = ManualClock()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let retry = RetryProcedure(maxAttempts: 3, wait: .constant(1), clock: clock) {
            TestProcedure(name: "attempt", error: TestError("always"))
        }
        let blocker = TestProcedure(name: "blocker", delay: 100, clock: clock)
        queue.addOperation(retry)
        waitUntilScheduled(on: clock)
        queue.addOperation(blocker)
        waitUntilScheduled(on: clock, count: 2)
        clock.advance(by: 1)  // the retry now waits in line for the blocker's slot
        retry.cancel()
        wait(for: retry)
        assertProcedureCancelled(retry)
        clock.advance(by: 99)
        wait(for: blocker)
        // Width 1 still holds (a slot given back twice would make it 2): a procedure added
        // while another runs does not start until that one has finished.
        let first = TestProcedure(name: "first", delay: 10, clock: clock)
        let second = TestProcedure(name: "second")
        let secondFinished = expectation(description: "second finished while first ran")
        secondFinished.isInverted = true
        second.addDidFinishBlockObserver { _, _ in secondFinished.fulfill() }
        queue.addOperation(first)
        waitUntilScheduled(on: clock)
        queue.addOperation(second)
        wait(for: [secondFinished], timeout: 0.3)
        clock.advance(by: 10)
        wait(for: first, second)
    }
}
