@testable import Procedures
import Foundation
import ProceduresTesting
import XCTest

/// A retry's slot, given back during its back-off, is handed over exactly once, whatever
/// races it: the wait ending, another procedure finishing and freeing the slot, and a cancel
/// of the retry on another thread. Afterwards the queue holds no slot, and still runs work.
final class SlotReleaseStressTests: XCTestCase {
    func testASlotGivenBackDuringABackOffIsAccountedOnceUnderRacingCancels() {
        for round in 0..<stressIterations(200) {
            let clock = ManualClock()
            let queue = ProcedureQueue()
            queue.maxConcurrentOperationCount = 1
            let retry = RetryProcedure(maxAttempts: 3, wait: .constant(1), clock: clock) {
                TestProcedure(name: "attempt", error: TestError("always"))
            }
            let blocker = TestProcedure(name: "blocker", delay: 1, clock: clock)
            queue.addOperation(retry)
            waitUntilScheduled(on: clock)
            queue.addOperation(blocker)
            waitUntilScheduled(on: clock, count: 2)
            // Both deadlines pass at once: the retry asks for a slot while the blocker frees one,
            // and a cancel races them on threads of its own.
            let cancelAfter = round % 3
            let advancer = Thread { clock.advance(by: 1) }
            let canceller = Thread {
                if cancelAfter > 0 { usleep(UInt32(cancelAfter * 50)) }
                retry.cancel()
            }
            advancer.start()
            canceller.start()
            wait(for: retry, blocker)
            // A later attempt may wait on the clock again: nothing more runs once cancelled.
            XCTAssertTrue(retry.isFinished, "round \(round)")
            // A slot granted to the retry after it finished goes straight back, on the drain
            // loop's thread: a probe runs (width 1) only once no slot is held.
            let probe = TestProcedure(name: "probe")
            queue.addOperation(probe)
            wait(for: probe)
            let counts = queue.scheduler.counts
            XCTAssertEqual(counts.running, 0, "round \(round): a slot was given back twice or kept")
            XCTAssertEqual(counts.waiting, 0, "round \(round)")
        }
    }
}
