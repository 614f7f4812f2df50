import Foundation
import ProceduresTestSupport
import XCTest

@testable import Procedures

/// Exclusive procedures on one category, added from a thread of their own while the queue
/// drains them: each next holder is granted on the thread of the loop that ran the one before,
/// and left to that loop, while some holders' did-finish observers hold that thread until their
/// successor has started. Every procedure runs once, one at a time, and none waits on the
/// thread of an observer.
final class CategoryHandoffStressTests: XCTestCase {
    func testExclusiveProceduresAllRunOnceAndOneAtATimeWhateverTheirObserversHold() {
        var random = StressRandom()
        let seed = random.seed
        for round in 0..<stressIterations(200) {
            let count = 20 + random.nextInt(40)
            let width = [-1, 1, 2, 3][random.nextInt(4)]
            let queue = ProcedureQueue()
            if width > 0 { queue.maxConcurrentOperationCount = width }
            let category = "handoff-stress-\(round)-\(UUID())"
            let (inside, ran) = (ConcurrencyCounter(), StressCounters(count: count))
            let started = (0..<count).map { _ in ArrivalCount() }
            let finished = ArrivalCount()
            var procedures: [BlockProcedure] = []
            for index in 0..<count {
                let procedure = BlockProcedure {
                    inside.enter()
                    ran.increment(index)
                    started[index].arrive()
                    inside.leave()
                }
                procedure.addCondition(MutuallyExclusive(category: category))
                procedure.addDidFinishBlockObserver { _, _ in finished.arrive() }
                procedures.append(procedure)
            }
            // Categories are granted in the order asked: each holder's successor is the next.
            for index in 0..<(count - 1) where random.nextInt(4) == 0 {
                let successor = started[index + 1]
                procedures[index].addDidFinishBlockObserver { _, _ in _ = successor.wait(for: 1, seconds: 10) }
            }
            let toAdd = procedures
            stressConcurrently([{ for procedure in toAdd { queue.addOperation(procedure) } }])
            let allFinished = finished.wait(for: count, seconds: 30)
            XCTAssertTrue(allFinished, "round \(round) (PROCEDURES_STRESS_SEED=\(seed)) hung:\n\(queue.waitingReport)")
            XCTAssertEqual(ran.values, Array(repeating: 1, count: count), "round \(round), seed \(seed)")
            XCTAssertEqual(inside.maximum, 1, "round \(round), seed \(seed): two holders of one category ran at once")
            if !allFinished { return }
        }
    }
}
