import Foundation
import ProceduresTesting
import XCTest

/// An attempt factory whose first `failures` attempts fail with numbered errors.
private final class FlakyAttempts: @unchecked Sendable {
    // @unchecked: `made` is only touched under `lock`.
    private let lock = NSLock()
    private var made = 0
    let failures: Int
    let clock: (any ProcedureClock)?
    let duration: TimeInterval

    init(failures: Int, duration: TimeInterval = 0, clock: (any ProcedureClock)? = nil) {
        self.failures = failures
        self.duration = duration
        self.clock = clock
    }

    var count: Int { lock.withLock { made } }

    func next() -> TestProcedure {
        let number = lock.withLock { () -> Int in
            made += 1
            return made
        }
        let error = number <= failures ? TestError("attempt \(number)") : nil
        return TestProcedure(name: "attempt \(number)", delay: duration, error: error, clock: clock)
    }
}

final class RetryProcedureTests: MisuseRecordingTestCase {
    func testFirstAttemptThatSucceedsIsTheOnlyOne() {
        let attempts = FlakyAttempts(failures: 0)
        let retry = RetryProcedure(maxAttempts: 5, attempt: attempts.next)
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(attempts.count, 1)
        XCTAssertEqual(retry.count, 1)
    }

    func testRetriesUntilAnAttemptSucceedsAndDropsTheEarlierErrors() {
        let attempts = FlakyAttempts(failures: 2)
        let retry = RetryProcedure(maxAttempts: 5, attempt: attempts.next)
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(attempts.count, 3)
        XCTAssertEqual(retry.current?.name, "attempt 3")
        XCTAssertEqual(retry.previous?.name, "attempt 2")
    }

    func testGivesUpAfterMaxAttemptsWithTheLastAttemptsErrorsOnly() {
        let attempts = FlakyAttempts(failures: 10)
        let retry = RetryProcedure(maxAttempts: 3, attempt: attempts.next)
        wait(for: retry)
        assertProcedureFinishedWithErrors(retry, count: 1)
        XCTAssertEqual(retry.errors.first as? TestError, TestError("attempt 3"))
        XCTAssertEqual(attempts.count, 3)
    }

    func testZeroMaxAttemptsMakesNoneAndFinishesWithoutErrors() {
        let attempts = FlakyAttempts(failures: 10)
        let retry = RetryProcedure(maxAttempts: 0, attempt: attempts.next)
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(attempts.count, 0)
    }

    func testHandlerReceivesTheFailureAndCanGiveUp() {
        let attempts = FlakyAttempts(failures: 10)
        let seen = LockedBox<[(String?, Int, [String])]>([])
        let retry = RetryProcedure(maxAttempts: 10, retry: { failure, suggested in
            seen.mutate {
                $0.append((failure.operation.name, failure.count, failure.errors.map { "\($0)" }))
            }
            return failure.count < 2 ? suggested : nil
        }, attempt: attempts.next)
        wait(for: retry)
        assertProcedureFinishedWithErrors(retry, count: 1)
        XCTAssertEqual(retry.errors.first as? TestError, TestError("attempt 2"))
        XCTAssertEqual(seen.value.map(\.0), ["attempt 1", "attempt 2"])
        XCTAssertEqual(seen.value.map(\.1), [1, 2])
        XCTAssertEqual(seen.value.map(\.2), [["TestError(attempt 1)"], ["TestError(attempt 2)"]])
        XCTAssertEqual(attempts.count, 3, "the suggested third attempt was made but never run")
        XCTAssertEqual(retry.count, 2)
    }

    func testHandlerCanReconfigureTheNextAttemptAndItsWait() {
        let clock = ManualClock()
        let attempts = FlakyAttempts(failures: 1)
        let retry = RetryProcedure(maxAttempts: 3, wait: .constant(100), clock: clock, retry: { _, suggested in
            var next = suggested
            next.wait = 7
            next.configure = { $0.name = "reconfigured" }
            return next
        }, attempt: attempts.next)
        ProcedureQueue().addOperation(retry)
        advance(clock, by: 7)
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(retry.current?.name, "reconfigured")
    }

    func testFiveExponentialRetriesOverAMinuteOfBackOffOnTheManualClock() {
        let clock = ManualClock()
        let attempts = FlakyAttempts(failures: 5)
        let retry = RetryProcedure(
            maxAttempts: 6, wait: .exponential(initial: 2, maximum: 30), clock: clock, attempt: attempts.next)
        let started = Date()
        ProcedureQueue().addOperation(retry)
        for seconds in [2.0, 4, 8, 16, 30] {
            XCTAssertFalse(retry.isFinished)
            advance(clock, by: seconds)
        }
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(attempts.count, 6)
        XCTAssertEqual(clock.now, 60)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "a minute of back-off must not take real time")
    }

    func testZeroAndNegativeWaitsRetryAtOnceWithoutTouchingTheClock() {
        for strategy in [WaitStrategy.immediate, .constant(-5), .custom { _ in .nan }] {
            let clock = ManualClock()
            let attempts = FlakyAttempts(failures: 3)
            let retry = RetryProcedure(maxAttempts: 5, wait: strategy, clock: clock, attempt: attempts.next)
            wait(for: retry)
            assertProcedureFinished(retry)
            XCTAssertEqual(attempts.count, 4)
            XCTAssertEqual(clock.now, 0)
        }
    }

    func testCancelDuringTheWaitCancelsTheWaitInsteadOfWaitingItOut() {
        let clock = ManualClock()
        let attempts = FlakyAttempts(failures: 10)
        let retry = RetryProcedure(maxAttempts: 5, wait: .constant(3600), clock: clock, attempt: attempts.next)
        ProcedureQueue().addOperation(retry)
        waitUntilScheduled(on: clock)
        retry.cancel()
        wait(for: retry)  // the clock never moves: only the cancel can end the wait
        assertProcedureCancelled(retry)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
        XCTAssertEqual(attempts.count, 2, "the second attempt was waiting, and never ran")
        XCTAssertEqual(retry.current?.didExecute, false)
    }

    func testCancelDuringAnAttemptCancelsItAndMakesNoOther() {
        let clock = ManualClock()
        let attempts = FlakyAttempts(failures: 10, duration: 50, clock: clock)
        let retry = RetryProcedure(maxAttempts: 5, clock: clock, attempt: attempts.next)
        ProcedureQueue().addOperation(retry)
        waitUntilScheduled(on: clock)
        let attempt = retry.current
        retry.cancel(withError: TestError("stop"))
        wait(for: retry)
        assertProcedureCancelled(retry, withErrors: true)
        XCTAssertEqual(retry.errors.first as? TestError, TestError("stop"))
        XCTAssertEqual(attempt?.isCancelled, true)
        XCTAssertEqual(attempts.count, 1)
    }

    func testAttemptThatTimesOutIsRetried() {
        let clock = ManualClock()
        let made = LockedBox(0)
        let retry = RetryProcedure(maxAttempts: 3, wait: .constant(1), clock: clock) { () -> TestProcedure in
            let number = made.mutate { $0 += 1; return $0 }
            // The first attempt hangs (its work would take an hour); the second is quick.
            return TestProcedure(delay: number == 1 ? 3600 : 0, clock: clock).timeout(after: 10, clock: clock)
        }
        ProcedureQueue().addOperation(retry)
        advance(clock, by: 10)  // the first attempt's timeout
        advance(clock, by: 1)  // the back-off
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(made.value, 2)
    }

    /// An attempt that cancels itself without errors (a condition said "do not run").
    private func silentlyCancelledAttempt() -> TestProcedure {
        let attempt = TestProcedure()
        attempt.addCondition(IgnoredCondition(FalseCondition()))
        return attempt
    }

    func testARetryWhoseLastAttemptWasCancelledWithoutErrorsFinishesCancelled() {
        let retry = RetryProcedure(maxAttempts: 2) { self.silentlyCancelledAttempt() }
        wait(for: retry)
        // No attempt succeeded: the retry did not either. It ends as its last attempt did.
        assertProcedureCancelled(retry, withErrors: false)
        XCTAssertEqual(retry.count, 2, "a cancelled attempt is a failed one: it was retried")
        XCTAssertTrue(retry.current?.isCancelled ?? false)
    }

    func testARetryWhoseHandlerGivesUpAfterACancelledAttemptFinishesCancelled() {
        let retry = RetryProcedure(maxAttempts: 5, retry: { _, _ in nil }) { self.silentlyCancelledAttempt() }
        wait(for: retry)
        assertProcedureCancelled(retry, withErrors: false)
        XCTAssertEqual(retry.count, 1)
    }

    func testAnAttemptCancelledWithoutErrorsIsRetriedAndALaterSuccessWins() {
        let made = LockedBox(0)
        let retry = RetryProcedure(maxAttempts: 3) { () -> TestProcedure in
            let number = made.mutate { $0 += 1; return $0 }
            return number == 1 ? self.silentlyCancelledAttempt() : TestProcedure()
        }
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 2)
    }

    func testIteratorThatRunsOutEndsTheRetryWithTheLastErrors() {
        let attempts = [TestProcedure(error: TestError("a")), TestProcedure(error: TestError("b"))]
        let retry = RetryProcedure(iterator: attempts.makeIterator())
        wait(for: retry)
        assertProcedureFinishedWithErrors(retry, count: 1)
        XCTAssertEqual(retry.errors.first as? TestError, TestError("b"))
    }

    func testRealTimeRetryWaitsBetweenAttempts() {
        let attempts = FlakyAttempts(failures: 2)
        let retry = RetryProcedure(maxAttempts: 3, wait: .constant(0.02), attempt: attempts.next)
        let started = Date()
        wait(for: retry)
        assertProcedureFinished(retry)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.04)
    }

    func testRetriesRacingCancelAlwaysFinish() {
        // Cancels land at every moment of a retry's life: before it starts, during an attempt,
        // in the retry handler, during a (zero or real) wait. Every retry must finish, and a
        // cancelled one must have stopped making attempts.
        let count = stressIterations(10_000)
        let queue = ProcedureQueue()
        var random = StressRandom()
        var retries: [RetryProcedure<TestProcedure>] = []
        retries.reserveCapacity(count)
        let clock = ManualClock()
        for index in 0..<count {
            let attempts = FlakyAttempts(failures: 3)
            let wait: WaitStrategy = index % 4 == 0 ? .constant(1) : .immediate
            let retry = RetryProcedure(maxAttempts: 4, wait: wait, clock: clock, attempt: attempts.next)
            retries.append(retry)
            queue.addOperation(retry)
            let delay = Int.random(in: 0..<50, using: &random)
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) { retry.cancel() }
        }
        // Some waits run out while others are being cancelled; the rest end with their cancel
        // (every retry is cancelled unless it finished first), so all finish.
        DispatchQueue.global().async { for _ in 0..<10 { clock.advance(by: 1) } }
        wait(forAll: retries, timeout: 120)
        for retry in retries where retry.isCancelled {
            XCTAssertTrue(retry.isFinished, "seed \(random.seed)")
            XCTAssertLessThanOrEqual(retry.count, 4)
        }
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all.prefix(3)) seed \(random.seed)")
    }
}

final class RetryMisuseTests: MisuseRecordingTestCase {
    func testHandlerReturningTheFailedAttemptAgainIsReportedAndTheRetryEndsWithItsErrors() {
        let retry = RetryProcedure(maxAttempts: 3, retry: { failure, _ in
            RepeatProcedurePayload(operation: failure.operation)
        }) {
            TestProcedure(error: TestError("once"))
        }
        wait(for: retry)
        assertProcedureFinishedWithErrors(retry, count: 1)
        XCTAssertEqual(retry.count, 1)
        XCTAssertEqual(misuse.kinds(about: retry), [.addedAfterFinishing])
    }
}
