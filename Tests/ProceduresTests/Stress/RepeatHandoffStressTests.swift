import Foundation
import Procedures
import ProceduresTestSupport
import XCTest

/// Retries added from a thread of their own while the queue drains them: each next attempt is
/// left to the loop that ran the one before. On a queue of width one, some retries' did-add
/// observers hold that thread until the attempt just added has run (one at a time: blocked
/// threads beyond the cores would starve Dispatch's pool, which the attempts' loops need).
/// Every attempt runs once, and none waits on the thread of an observer.
final class RepeatHandoffStressTests: XCTestCase {
    func testEveryAttemptOfManyRetriesRunsOnceWhateverTheirObserversHold() {
        var random = StressRandom()
        let seed = random.seed
        for round in 0..<stressIterations(100) {
            let count = 20 + random.nextInt(40)
            let narrow = random.nextInt(2) == 0
            let queue = ProcedureQueue()
            if narrow { queue.maxConcurrentOperationCount = 1 }
            let ran = StressCounters(count: count * 3)
            let finished = ArrivalCount()
            let timedOut = LockedBox<[String]>([])
            var retries: [RetryProcedure<BlockProcedure>] = []
            for index in 0..<count {
                let attemptsRan = (0..<3).map { _ in ArrivalCount() }
                var attempt = 0
                let retry = RetryProcedure(maxAttempts: 3) { () -> BlockProcedure in
                    let this = attempt
                    attempt += 1
                    return BlockProcedure {
                        ran.increment(index * 3 + this)
                        attemptsRan[this].arrive()
                        if this < 2 { throw HandoffTestError() }
                    }
                }
                if narrow, random.nextInt(3) == 0 {
                    let added = LockedBox(0)
                    retry.addDidAddOperationBlockObserver { _, _ in
                        let number = added.mutate { $0 += 1; return $0 }
                        if number > 1, !attemptsRan[number - 1].wait(for: 1, seconds: 10) {
                            timedOut.mutate { $0.append("retry \(index), attempt \(number)") }
                        }
                    }
                }
                retry.addDidFinishBlockObserver { _, _ in finished.arrive() }
                retries.append(retry)
            }
            let toAdd = retries
            stressConcurrently([{ for retry in toAdd { queue.addOperation(retry) } }])
            let allFinished = finished.wait(for: count, seconds: 60)
            let what = "round \(round) (PROCEDURES_STRESS_SEED=\(seed))"
            XCTAssertTrue(allFinished, "\(what) hung:\n\(queue.waitingReport)")
            XCTAssertEqual(timedOut.value, [], "\(what): an observer held the thread an attempt waited on")
            XCTAssertEqual(ran.values, Array(repeating: 1, count: count * 3), what)
            XCTAssertTrue(retries.allSatisfy { $0.errors.isEmpty }, what)
            if !allFinished || !timedOut.value.isEmpty { return }
        }
    }
}

private struct HandoffTestError: Error {}
