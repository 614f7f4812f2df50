@testable import Procedures
import Foundation
import ProceduresTesting
import Synchronization
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
            assertEverySlotFree(on: queue, round: round)
        }
    }
}

/// A group gives its slot of the queue back when its last running child (a retry in its
/// back-off) gives back its own, and does so holding no lock of its scheduler: a child added
/// meanwhile waits for the release to be done, then for the slot to come back, and runs.
final class GroupSlotReleaseStressTests: XCTestCase {
    func testAChildAddedWhileTheGroupGivesItsSlotBackRunsWithinTheWidth() {
        let rounds = stressIterations(1_000)
        var deferred = 0
        for round in 0..<rounds {
            let clock = ManualClock()
            let queue = ProcedureQueue()
            queue.maxConcurrentOperationCount = 1
            let failed = Atomic<Bool>(false)
            let retry = RetryProcedure(maxAttempts: 2, wait: .constant(1), clock: clock) { () -> TestProcedure in
                let attempt = TestProcedure(name: "attempt", error: TestError("flaky"))
                attempt.addDidFinishBlockObserver { _, _ in failed.store(true, ordering: .releasing) }
                return attempt
            }
            let group = GroupProcedure(operations: [retry])
            let late = TestProcedure(name: "late")
            // An expectation, not `wait(for: late)`, which would add `late` to a queue of its own
            // if it came before the adder.
            let lateFinished = expectation(description: "round \(round): the late child ran")
            late.addDidFinishBlockObserver { _, _ in lateFinished.fulfill() }
            queue.addOperation(group)
            // The first attempt's finish leads straight to the retry's back-off and the release
            // of both slots: the child is added on a thread of its own as that happens, a
            // little later each round.
            let adder = Thread {
                while !failed.load(ordering: .acquiring) {}
                for _ in 0..<(round % 50) { _ = failed.load(ordering: .relaxed) }
                group.addChild(late)
            }
            adder.start()
            wait(for: [lateFinished], timeout: 10)
            waitUntilScheduled(on: clock)
            clock.advance(by: 1)  // ends the back-off (a second failure ends the retry)
            wait(for: group)
            deferred += group.scheduler.deferredReacquireCount
            assertEverySlotFree(on: queue, round: round)
        }
        print("GroupSlotReleaseStressTests: \(deferred) of \(rounds) rounds added the child during the release")
    }
}

extension XCTestCase {
    /// A probe runs on `queue` (of width 1) only once no slot is held; then none is held and
    /// nothing waits: no slot was given back twice or kept.
    fileprivate func assertEverySlotFree(on queue: ProcedureQueue, round: Int, line: UInt = #line) {
        let probe = TestProcedure(name: "probe")
        queue.addOperation(probe)
        wait(for: probe)
        let counts = queue.scheduler.counts
        XCTAssertEqual(counts.running, 0, "round \(round): a slot was given back twice or kept", line: line)
        XCTAssertEqual(counts.waiting, 0, "round \(round)", line: line)
    }
}
