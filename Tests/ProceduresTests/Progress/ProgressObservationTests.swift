import Foundation
import ProceduresTesting
import XCTest

/// Watching progress without key-value observing: coalesced callbacks and an async sequence.
final class ProgressObservationTests: XCTestCase {
    /// Sets `procedure`'s completed units from 1 to `count` on a dedicated thread.
    private func update(_ procedure: Procedure, count: Int) {
        let done = XCTestExpectation(description: "updates made")
        let thread = Thread {
            let progress = procedure.progress
            for completed in 1...count { progress.completedUnitCount = Int64(completed) }
            done.fulfill()
        }
        thread.start()
        wait(for: [done], timeout: 120)
    }

    func testAMillionUpdatesMakeAHandfulOfCallsOnAManualClock() {
        let clock = ManualClock()
        let procedure = SteppedProcedure()
        let count = 1_000_000
        procedure.progress.totalUnitCount = Int64(count)
        let calls = LockedBox<[ProgressUpdate]>([])
        let sawAll = XCTestExpectation(description: "saw every update")
        let sawFinal = XCTestExpectation(description: "saw the final update")
        procedure.observeProgress(minimumInterval: 1, clock: clock) { update in
            calls.mutate { $0.append(update) }
            if update.completedUnitCount == count && !update.isFinal { sawAll.fulfill() }
            if update.isFinal { sawFinal.fulfill() }
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [procedure.executing], timeout: 10)
        update(procedure, count: count)
        // The later updates wait for the minimum interval, on the manual clock.
        advance(clock, by: 1)
        wait(for: [sawAll], timeout: 10)
        procedure.release()
        advance(clock, by: 1)
        wait(for: [sawFinal], timeout: 10)
        let seen = calls.value
        XCTAssertLessThanOrEqual(seen.count, 4, "\(seen)")
        XCTAssertEqual(seen.last?.isFinal, true)
        XCTAssertEqual(seen.last?.fractionCompleted, 1)
        XCTAssertEqual(seen.map(\.completedUnitCount), seen.map(\.completedUnitCount).sorted(), "in order")
    }

    func testAMillionUpdatesMakeFewCallsInRealTime() {
        let procedure = SteppedProcedure()
        let count = 1_000_000
        procedure.progress.totalUnitCount = Int64(count)
        let calls = LockedBox(0)
        let last = LockedBox<ProgressUpdate?>(nil)
        let sawFinal = XCTestExpectation(description: "saw the final update")
        procedure.observeProgress { update in  // the default: at most one call every 50 ms
            calls.mutate { $0 += 1 }
            last.mutate { $0 = update }
            if update.isFinal { sawFinal.fulfill() }
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [procedure.executing], timeout: 10)
        let started = Date()
        update(procedure, count: count)
        let seconds = Date().timeIntervalSince(started)
        procedure.release()
        wait(for: [sawFinal], timeout: 10)
        // One call at once, then at most one per 50 ms while updating, then the last ones.
        XCTAssertLessThanOrEqual(calls.value, Int(seconds / 0.05) + 5, "\(calls.value) calls in \(seconds) s")
        XCTAssertLessThan(calls.value, 1000)
        XCTAssertEqual(last.value?.fractionCompleted, 1)
        XCTAssertEqual(last.value?.isFinal, true)
    }

    func testCallsNeverOverlapAndTheLatestIsAlwaysDelivered() {
        let procedure = SteppedProcedure()
        procedure.progress.totalUnitCount = 100
        let running = LockedBox(0)
        let overlapped = LockedBox(false)
        let sawLast = XCTestExpectation(description: "saw 100")
        sawLast.assertForOverFulfill = false
        procedure.observeProgress(minimumInterval: 0) { update in
            if running.mutate({ count -> Int in
                count += 1
                return count
            }) > 1 { overlapped.mutate { $0 = true } }
            if update.completedUnitCount == 100 { sawLast.fulfill() }
            running.mutate { $0 -= 1 }
        }
        let written = XCTestExpectation(description: "writers done")
        written.expectedFulfillmentCount = 4
        for index in 0..<4 {
            Thread {
                for completed in stride(from: index + 1, through: 100, by: 4) {
                    procedure.progress.completedUnitCount = Int64(completed)
                }
                written.fulfill()
            }.start()
        }
        wait(for: [written], timeout: 10)
        // The writers raced: the last write wins, so end on 100.
        procedure.progress.completedUnitCount = 100
        wait(for: [sawLast], timeout: 10)
        XCTAssertFalse(overlapped.value)
        procedure.cancel()
        procedure.release()
        wait(for: procedure)
    }

    func testCancelledObservationGetsNoMoreCalls() {
        let clock = ManualClock()
        let procedure = SteppedProcedure()
        procedure.progress.totalUnitCount = 10
        let calls = LockedBox(0)
        let first = XCTestExpectation(description: "first call")
        let another = XCTestExpectation(description: "a call after the cancel")
        another.isInverted = true
        let observation = procedure.observeProgress(minimumInterval: 1, clock: clock) { _ in
            let count = calls.mutate { count -> Int in
                count += 1
                return count
            }
            if count == 1 { first.fulfill() } else { another.fulfill() }
        }
        wait(for: [first], timeout: 10)
        procedure.progress.completedUnitCount = 5
        waitUntilScheduled(on: clock)
        observation.cancel()
        clock.advance(by: 1)
        ProcedureQueue().addOperation(procedure)
        wait(for: [procedure.executing], timeout: 10)
        procedure.release()
        wait(for: procedure)
        clock.runUntilIdle()
        wait(for: [another], timeout: 0.2)
        XCTAssertEqual(calls.value, 1)
    }

    func testAsyncSequenceEndsWithTheFinalUpdate() async {
        let batch = BatchProcedure<Int, Int>(input: Array(0..<20), width: 2) { $0 * 2 }
        let updates = batch.progressUpdates(minimumInterval: 0)
        ProcedureQueue().addOperation(batch)
        var fractions: [Double] = []
        var last: ProgressUpdate?
        for await update in updates {
            fractions.append(update.fractionCompleted)
            last = update
        }
        XCTAssertEqual(last?.isFinal, true)
        XCTAssertEqual(last?.fractionCompleted, 1)
        XCTAssertEqual(fractions, fractions.sorted(), "a batch's progress only moves forward")
    }

    func testLeavingTheLoopStopsTheObservation() async {
        let procedure = SteppedProcedure()
        procedure.progress.totalUnitCount = 2
        for await update in procedure.progressUpdates(minimumInterval: 0) {
            XCTAssertEqual(update.fractionCompleted, 0)
            break
        }
        procedure.release()
        try? await ProcedureQueue().run(procedure)
        XCTAssertTrue(procedure.isFinished)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 1)
    }
}
