import Foundation
import ProceduresTestSupport
import ProceduresTesting
import Testing

/// The manual clock from `@Test` functions: `try await advance(clock, by:)` waits for the
/// callback it steps through, `waitUntilScheduled(on:count:)` for a number pending, and a wait
/// nobody satisfies records an issue with the pending deadlines. Each test has its own clock.
@Suite struct SwiftTestingManualClockTests {
    @Test func advanceWaitsForTheCallbackItStepsThroughThenRunsIt() async throws {
        let clock = ManualClock()
        let anHour = DelayProcedure(by: 3600, clock: clock)
        ProcedureQueue().addOperation(anHour)
        try await waitUntilScheduled(on: clock)  // the delay is waiting
        clock.advance(by: 3599)
        #expect(!anHour.isFinished, "a second early")
        try await advance(clock, by: 1)
        try await wait(for: anHour)
        #expect(anHour.finishedWithoutErrors)
        #expect(clock.now == 3600)
    }

    @Test func aRetryIsSteppedThroughItsBackOffOneWaitAtATime() async throws {
        let clock = ManualClock()
        let attempts = LockedBox(0)
        let retry = RetryProcedure(maxAttempts: 4, wait: .exponential(initial: 1, maximum: 30), clock: clock) {
            BlockProcedure {
                let attempt = attempts.mutate { count -> Int in
                    count += 1
                    return count
                }
                if attempt < 4 { throw TestError("attempt \(attempt)") }
            }
        }
        ProcedureQueue().addOperation(retry)
        for seconds in [1.0, 2, 4] { try await advance(clock, by: seconds) }
        try await wait(for: retry)
        #expect(retry.finishedWithoutErrors)
        #expect(attempts.value == 4)
        #expect(clock.now == 7)
    }

    @Test func waitUntilScheduledWaitsForTheCountPending() async throws {
        let clock = ManualClock()
        let slow = TestProcedure(name: "slow", delay: 60, clock: clock).timeout(after: 30, clock: clock)
        ProcedureQueue().addOperation(slow)
        try await waitUntilScheduled(on: clock, count: 2)  // its timeout, and the minute it would take
        #expect(clock.pendingDeadlines == [30, 60])
        clock.advance(by: 30)
        try await wait(for: slow)
        #expect(slow.finishedCancelled)
        #expect(slow.errors.first.map { "\($0)" } == "timed out after 30 s")
    }

    @Test func aWaitNobodySatisfiesRecordsAnIssueWithThePendingDeadlinesAndLeavesTheClockAlone() async throws {
        let clock = ManualClock(now: 10)
        _ = clock.schedule(at: 12) {}
        let issues = LockedBox<[String]>([])
        try await withKnownIssue {
            try await advance(clock, by: 5, timeout: 0.1)
        } matching: { issue in
            issues.mutate { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
            return true
        }
        #expect(issues.value == [
            "Timed out after 0.1 s waiting for a callback due at 15.0 on the manual clock; pending deadlines: [12.0], now: 10.0"
        ])
        #expect(clock.now == 10)
        #expect(clock.pendingDeadlines == [12])
    }

    @Test func aWaitSeesCallbacksScheduledFromManyTasksAtOnceAndTheyRunInDeadlineOrder() async throws {
        let clock = ManualClock()
        let count = 64
        let ran = LockedBox<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await waitUntilScheduled(on: clock, count: count) }
            for index in 0..<count {
                group.addTask {
                    _ = clock.schedule(at: TimeInterval(count - index)) { ran.mutate { $0.append(count - index) } }
                }
            }
            try await group.waitForAll()
        }
        clock.advance(by: TimeInterval(count))
        #expect(ran.value == Array(1...count))
    }
}
