import Foundation
import ProceduresTesting
import XCTest

/// `waitUntilAllOperationsAreFinished()` racing the queue going idle: the last procedure
/// finishes on a worker just before, during or after the waiter looks at the members. A wake
/// sent between the look and the sleep must not be lost (the waiter would sleep forever).
final class IdleWaitStressTests: MisuseRecordingTestCase {
    func testAWaiterIsWokenWhenTheQueueGoesIdleJustAsItLooks() {
        let rounds = stressIterations(5_000)
        let queue = ProcedureQueue()
        let failures = LockedBox<[String]>([])
        let done = expectation(description: "every wait returned")
        var random = StressRandom()
        let delays = (0..<rounds).map { _ in random.nextInt(30) }
        let waiter = Thread {
            for round in 0..<rounds {
                // The procedure finishes on a worker a few microseconds after it is added; the
                // waiter starts waiting up to 30 µs after adding it, so that across rounds the
                // finish lands before, during and after its look at the members.
                queue.addOperation(BlockProcedure {})
                Self.spin(microseconds: delays[round])
                queue.waitUntilAllOperationsAreFinished()
                if queue.unfinishedOperationCount != 0 {
                    failures.mutate { $0.append("round \(round): returned while the queue held \(queue.unfinishedOperationCount)") }
                }
            }
            done.fulfill()
        }
        waiter.start()
        wait(for: [done], timeout: 60)
        XCTAssertEqual(failures.value, [], "seed \(random.seed)")
    }

    /// Keeps the thread busy (not asleep) for about `microseconds`.
    private static func spin(microseconds: Int) {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(microseconds) * 1_000
        while DispatchTime.now().uptimeNanoseconds < end {}
    }

    func testSeveralWaitersAreAllWokenByOneIdleQueue() {
        let rounds = stressIterations(300)
        for round in 0..<rounds {
            let queue = ProcedureQueue()
            let gate = BlockProcedure {}
            let held = BlockProcedure {}
            held.addDependency(gate)
            queue.addOperation(held)
            let returned = exactCountExpectation("round \(round): every waiter returned", count: 3)
            for _ in 0..<3 {
                Thread {
                    queue.waitUntilAllOperationsAreFinished()
                    returned.fulfill()
                }.start()
            }
            queue.addOperation(gate)
            wait(for: [returned], timeout: 10)
        }
    }
}
