import Foundation
import ProceduresTesting
import XCTest

/// What the library's own procedures count: elements, attempts, time waited, lines printed.
final class BuiltInProgressTests: XCTestCase {
    func testBatchCountsFinishedElements() {
        let gate = LockedBox<[Int: SteppedProcedure]>([:])
        let made = XCTestExpectation(description: "children made")
        made.expectedFulfillmentCount = 4
        let batch = BatchProcedure<Int, Int>(input: Array(0..<4), width: 4) { element in
            let child = SteppedOutput(element)
            gate.mutate { $0[element] = child.stepped }
            made.fulfill()
            return child
        }
        XCTAssertEqual(batch.currentProgress.totalUnitCount, 4, "its input's elements, before it executes")
        XCTAssertEqual(batch.currentProgress.completedUnitCount, 0)
        ProcedureQueue().addOperation(batch)
        wait(for: [made], timeout: 10)
        waitForProgress(of: batch) { $0.totalUnitCount == 4 }
        XCTAssertEqual(batch.currentProgress.completedUnitCount, 0)
        for element in [0, 2] {
            let stepped = gate.value[element]!
            wait(for: [stepped.executing], timeout: 10)
            stepped.release()
        }
        waitForProgress(of: batch) { $0.completedUnitCount == 2 }
        XCTAssertEqual(batch.currentProgress.fractionCompleted, 0.5)
        for element in [1, 3] { gate.value[element]!.release() }
        wait(for: batch)
        XCTAssertEqual(batch.currentProgress.completedUnitCount, 4)
        XCTAssertEqual(batch.currentProgress.fractionCompleted, 1)
        XCTAssertEqual(batch.output, [0, 1, 2, 3])
    }

    func testRetryCountsAttemptsAndCompletesWhenOneSucceeds() {
        struct Flaky: Error {}
        let clock = ManualClock()
        let attempts = LockedBox(0)
        let retry = RetryProcedure(maxAttempts: 4, wait: .constant(10), clock: clock) {
            BlockProcedure {
                let attempt = attempts.mutate { count -> Int in
                    count += 1
                    return count
                }
                if attempt < 3 { throw Flaky() }
            }
        }
        XCTAssertEqual(retry.currentProgress.totalUnitCount, 4)
        ProcedureQueue().addOperation(retry)
        waitForProgress(of: retry) { $0.completedUnitCount == 1 }
        XCTAssertEqual(retry.currentProgress.fractionCompleted, 0.25)
        advance(clock, by: 10)
        waitForProgress(of: retry) { $0.completedUnitCount == 2 }
        XCTAssertEqual(retry.currentProgress.fractionCompleted, 0.5)
        advance(clock, by: 10)
        wait(for: retry)
        XCTAssertEqual(retry.currentProgress.fractionCompleted, 1, "the third attempt succeeded: done")
        XCTAssertEqual(attempts.value, 3)
    }

    func testRepeatWithoutALimitIsIndeterminateUntilItFinishes() {
        let left = LockedBox(3)
        let repeating = RepeatProcedure<BlockProcedure> {
            left.mutate { count -> BlockProcedure? in
                guard count > 0 else { return nil }
                count -= 1
                return BlockProcedure {}
            }
        }
        XCTAssertTrue(repeating.currentProgress.isIndeterminate)
        wait(for: repeating)
        XCTAssertEqual(repeating.currentProgress.fractionCompleted, 1)
        XCTAssertFalse(repeating.progress.isIndeterminate)
    }

    func testDelayCountsTimeWaitedOnItsClock() {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 60, clock: clock)
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 0)
        ProcedureQueue().addOperation(delay)
        waitForProgress(of: delay) { $0.totalUnitCount == 60_000 }
        clock.advance(by: 15)
        XCTAssertEqual(delay.currentProgress.completedUnitCount, 15_000, accuracy: 10)
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 0.25, accuracy: 0.001)
        clock.advance(by: 15)
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 0.5, accuracy: 0.001)
        clock.advance(by: 30)
        wait(for: delay)
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 1)
        XCTAssertEqual(delay.currentProgress.completedUnitCount, 60_000)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty, "no reading of the clock is left behind")
    }

    func testDelayTrackedOnlyAfterItStartedCountsFromTheStartOfItsWait() {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 100, clock: clock)
        ProcedureQueue().addOperation(delay)
        waitUntilScheduled(on: clock)
        clock.advance(by: 40)
        XCTAssertEqual(clock.pendingDeadlines.count, 1, "nobody tracks it: nothing reads the clock")
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 0.4, accuracy: 0.001)
        clock.advance(by: 10)
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 0.5, accuracy: 0.001)
        delay.cancel()
        wait(for: delay)
        XCTAssertEqual(delay.currentProgress.fractionCompleted, 0.5, accuracy: 0.001)
        XCTAssertTrue(delay.currentProgress.isCancelled)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }

    func testReduceCountsElementsFolded() {
        let reducing = LockedBox<Procedure?>(nil)
        let seen = LockedBox<[Int64]>([])
        let reduce = ReduceProcedure(input: Array(1...4), 0) { total, element -> Int in
            // As each element is folded, those before it are counted.
            if let procedure = reducing.value { seen.mutate { $0.append(procedure.currentProgress.completedUnitCount) } }
            return total + element
        }
        reducing.mutate { $0 = reduce }
        XCTAssertEqual(reduce.currentProgress.fractionCompleted, 0)
        wait(for: reduce)
        reducing.mutate { $0 = nil }
        XCTAssertEqual(reduce.output, 10)
        XCTAssertEqual(seen.value, [0, 1, 2, 3])
        XCTAssertEqual(reduce.progress.totalUnitCount, 4)
        XCTAssertEqual(reduce.currentProgress.fractionCompleted, 1)
    }

    func testReduceCancelledPartWayStopsAtTheElementsFolded() {
        let reducing = LockedBox<Procedure?>(nil)
        let folding = ReduceProcedure<Int, Int>(input: Array(1...10), into: 0) { total, element in
            total += element
            if element == 5 { reducing.value?.cancel() }
        }
        reducing.mutate { $0 = folding }
        _ = folding.currentProgress
        wait(for: folding)
        reducing.mutate { $0 = nil }
        XCTAssertTrue(folding.isCancelled)
        XCTAssertEqual(folding.currentProgress.fractionCompleted, 0.4, accuracy: 1e-9, "cancelled while folding the fifth")
        XCTAssertEqual(folding.partialOutput, 15)
    }
}

/// An output procedure for a batch whose element finishes when the test releases it.
final class SteppedOutput: GroupProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked: `element` is immutable; the stepped child has its own lock.
    let stepped = SteppedProcedure()
    private let element: Int

    init(_ element: Int) {
        self.element = element
        super.init(operations: [stepped])
    }

    var output: Int? { isFinished ? element : nil }
}
