import Foundation
import ProceduresTesting
import XCTest

final class DelayProcedureTests: MisuseRecordingTestCase {
    // MARK: - Helpers

    /// Runs `delay` with a did-execute observer that calls `finish()` itself, and returns the
    /// misuse kinds reported about the delay.
    ///
    /// A delay that finishes at once (inside `execute()`) has already begun finishing when its
    /// did-execute observers run, so that `finish()` is a reported duplicate. A delay that
    /// scheduled a timer has not, so the observer's `finish()` wins quietly (and the delay
    /// finishes at once instead of after its timer).
    private func finishFromDidExecute(_ delay: DelayProcedure, file: StaticString = #filePath, line: UInt = #line)
        -> [ProcedureMisuse.Kind]
    {
        delay.addDidExecuteBlockObserver { delay in delay.finish() }
        wait(for: delay, timeout: 10, file: file, line: line)
        assertProcedureFinished(delay, file: file, line: line)
        return misuse.kinds(about: delay)
    }

    // MARK: - Positive delays

    func testPositiveDelayByFinishes() {
        let delay = DelayProcedure(by: 0.05)
        let order = LockedBox<[String]>([])
        delay.addDidExecuteBlockObserver { _ in order.mutate { $0.append("didExecute") } }
        delay.addWillFinishBlockObserver { _, _ in order.mutate { $0.append("willFinish") } }
        wait(for: delay, timeout: 10)
        assertProcedureFinished(delay)
        XCTAssertEqual(order.value, ["didExecute", "willFinish"])
        XCTAssertEqual(misuse.kinds(about: delay), [])
    }

    func testPositiveDelayUntilFinishes() {
        let delay = DelayProcedure(until: Date(timeIntervalSinceNow: 0.05))
        wait(for: delay, timeout: 10)
        assertProcedureFinished(delay)
        XCTAssertEqual(misuse.kinds(about: delay), [])
    }

    func testPositiveDelayHoldsBackItsDependent() {
        let delay = DelayProcedure(by: 0.05)
        let delayFinishedFirst = LockedBox<Bool?>(nil)
        let dependent = BlockProcedure { delayFinishedFirst.mutate { $0 = delay.isFinished } }
        dependent.addDependency(delay)
        wait(for: delay, dependent, timeout: 10)
        assertProcedureFinished(dependent)
        XCTAssertEqual(delayFinishedFirst.value, true)
    }

    /// Control for the helper: a delay with a timer has not begun finishing after `execute()`.
    func testPositiveDelayHasNotFinishedWhenExecuteReturns() {
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(by: 60)), [])
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(until: Date(timeIntervalSinceNow: 60))), [])
    }

    // MARK: - Zero, negative and past delays

    func testZeroDelayFinishesAtOnce() {
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(by: 0)), [.finishedTwice])
    }

    func testNegativeDelayFinishesAtOnce() {
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(by: -60)), [.finishedTwice])
    }

    func testNegativeInfiniteDelayFinishesAtOnce() {
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(by: -.infinity)), [.finishedTwice])
    }

    func testPastDateFinishesAtOnce() {
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(until: Date(timeIntervalSinceNow: -60))), [.finishedTwice])
    }

    func testDistantPastFinishesAtOnce() {
        XCTAssertEqual(finishFromDidExecute(DelayProcedure(until: .distantPast)), [.finishedTwice])
    }

    func testNegativeDelayReleasesItsDependentWithoutATimer() {
        // A -60 s delay waited for by absolute value would hold the dependent for a minute.
        let delay = DelayProcedure(by: -60)
        let order = LockedBox<[String]>([])
        // Will-finish: dependents are released after it, and may run before did-finish observers.
        delay.addWillFinishBlockObserver { _, _ in order.mutate { $0.append("delay") } }
        let dependent = BlockProcedure { order.mutate { $0.append("dependent") } }
        dependent.addDependency(delay)
        let queue = ProcedureQueue()
        queue.addOperations([dependent, delay], waitUntilFinished: false)
        wait(for: dependent, timeout: 10)
        wait(for: delay, timeout: 10)
        assertProcedureFinished(delay)
        assertProcedureFinished(dependent)
        XCTAssertEqual(order.value, ["delay", "dependent"])
    }

    func testPastDateReleasesItsDependent() {
        let delay = DelayProcedure(until: Date(timeIntervalSinceNow: -3600))
        let ranAfterDelay = LockedBox<Bool?>(nil)
        let dependent = BlockProcedure { ranAfterDelay.mutate { $0 = delay.isFinished } }
        dependent.addDependency(delay)
        let queue = ProcedureQueue()
        queue.addOperations([dependent, delay], waitUntilFinished: false)
        wait(for: dependent, delay, timeout: 10)
        XCTAssertEqual(ranAfterDelay.value, true)
    }

    // MARK: - NaN

    func testNaNDelayIsReportedAndFinishesAtOnce() {
        let delay = DelayProcedure(by: .nan)
        XCTAssertEqual(misuse.kinds(about: delay), [.invalidDelay])
        // The did-execute finish() adds the duplicate-finish report: the delay finished at once.
        XCTAssertEqual(finishFromDidExecute(delay), [.invalidDelay, .finishedTwice])
    }

    func testValidDelaysAreNotReported() {
        let delays = [
            DelayProcedure(by: 0), DelayProcedure(by: -1), DelayProcedure(by: 1),
            DelayProcedure(by: .infinity), DelayProcedure(until: .distantPast),
            DelayProcedure(until: .distantFuture),
        ]
        XCTAssertEqual(misuse.reports(aboutAny: delays).map(\.kind), [])
    }

    // MARK: - Cancelling

    func testCancelWhileExecutingFinishesPromptly() {
        let delay = DelayProcedure(by: 60)
        let executed = expectation(description: "executed")
        delay.addDidExecuteBlockObserver { _ in executed.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(delay)
        wait(for: [executed], timeout: 10)
        XCTAssertFalse(delay.isFinished)
        delay.cancel()
        wait(for: delay, timeout: 10)
        assertProcedureCancelled(delay)
        XCTAssertEqual(misuse.kinds(about: delay), [])
    }

    func testCancelWithErrorWhileExecutingCarriesTheError() {
        let delay = DelayProcedure(until: Date(timeIntervalSinceNow: 60))
        runUntilExecuting(delay)
        let error = TestError("stop")
        delay.cancel(withError: error)
        wait(for: delay, timeout: 10)
        assertProcedureCancelled(delay, withErrors: true)
        XCTAssertEqual(delay.errors.compactMap { $0 as? TestError }, [error])
    }

    func testCancelInfiniteDelayFinishes() {
        let delay = DelayProcedure(by: .infinity)
        runUntilExecuting(delay)
        delay.cancel()
        wait(for: delay, timeout: 10)
        assertProcedureCancelled(delay)
    }

    func testCancelDistantFutureDelayFinishes() {
        let delay = DelayProcedure(until: .distantFuture)
        runUntilExecuting(delay)
        delay.cancel()
        wait(for: delay, timeout: 10)
        assertProcedureCancelled(delay)
    }

    func testCancelledBeforeStartNeverExecutes() {
        let delay = DelayProcedure(by: 60)
        let executions = LockedBox(0)
        delay.addWillExecuteBlockObserver { _ in executions.mutate { $0 += 1 } }
        delay.addDidExecuteBlockObserver { _ in executions.mutate { $0 += 1 } }
        delay.cancel()
        wait(for: delay, timeout: 10)
        assertProcedureCancelled(delay)
        XCTAssertEqual(executions.value, 0)
    }

    func testCancelledBeforeStartReleasesItsDependent() {
        let delay = DelayProcedure(by: 60)
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(delay)
        delay.cancel()
        let queue = ProcedureQueue()
        queue.addOperations([delay, dependent], waitUntilFinished: false)
        wait(for: dependent, delay, timeout: 10)
        assertProcedureCancelled(delay)
        assertProcedureFinished(dependent)
        XCTAssertTrue(dependent.didExecute)
    }

    func testCancelAfterTimerFiredIsIgnored() {
        let delay = DelayProcedure(by: 0.01)
        wait(for: delay, timeout: 10)
        delay.cancel()
        assertProcedureFinished(delay)
        XCTAssertFalse(delay.isCancelled)
        XCTAssertEqual(misuse.kinds(about: delay), [])
    }

    // MARK: - Injection

    func testAnInjectedDelayIsWaitedForOnItsClock() {
        let clock = ManualClock()
        let backOff = ResultProcedure { DelayProcedure.Delay.by(5) }
        let delay = DelayProcedure(clock: clock).injectResult(from: backOff)
        ProcedureQueue().addOperations([backOff, delay], waitUntilFinished: false)
        waitUntilScheduled(on: clock, count: 1)
        XCTAssertEqual(clock.pendingDeadlines, [5])
        XCTAssertFalse(delay.isFinished, "finished before its injected delay was over")
        clock.advance(by: 5)
        wait(for: delay)
        assertProcedureFinished(delay)
        XCTAssertEqual(delay.delay, .by(5))
    }

    func testSecondsInjectedThroughATransformBecomeTheDelay() {
        let clock = ManualClock()
        let seconds = ResultProcedure { 3.0 }
        let delay = DelayProcedure(clock: clock).injectResult(from: seconds) { .by($0) }
        ProcedureQueue().addOperations([seconds, delay], waitUntilFinished: false)
        advance(clock, by: 3)
        wait(for: delay)
        assertProcedureFinished(delay)
    }

    func testADelayGivenNoDelayFailsWithMissingInput() {
        let delay = DelayProcedure(clock: ManualClock())
        wait(for: delay)
        assertProcedureFinishedWithErrors(delay, count: 1)
        guard case .missingInput? = delay.errors.first as? ProcedureError else {
            return XCTFail("expected missingInput, got \(delay.errors)")
        }
    }

    // MARK: - Description

    func testNameSaysTheInterval() {
        let delay = DelayProcedure(by: 1.5)
        let name = delay.name ?? ""
        XCTAssertTrue(name.hasPrefix("Delay(by: "), name)
        XCTAssertTrue(name.contains("1.5"), name)
        XCTAssertEqual(delay.delay, .by(1.5))
    }

    func testNameSaysTheDate() {
        let date = Date(timeIntervalSince1970: 2_000_000_000)
        let delay = DelayProcedure(until: date)
        let name = delay.name ?? ""
        XCTAssertTrue(name.hasPrefix("Delay(until: "), name)
        XCTAssertTrue(name.contains("\(date)"), name)
        XCTAssertEqual(delay.delay, .until(date))
    }

    func testDelaysWithDifferentIntervalsHaveDifferentNames() {
        XCTAssertNotEqual(DelayProcedure(by: 1).name, DelayProcedure(by: 2).name)
    }
}
