import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// Asking why procedures wait, from other threads, while they move through every stage (a
/// dependency chain, a shared category, a width of 2, cancels) neither crashes nor races, and
/// every procedure still finishes with no reason left.
final class WaitingReasonStressTests: XCTestCase {
    func testAskingWhileProceduresMoveThroughEveryStage() {
        let count = stressIterations(2_000)
        let category = "stress-waiting-\(UUID().uuidString)"
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 2
        var procedures: [Procedure] = []
        procedures.reserveCapacity(count)
        for index in 0..<count {
            let procedure = BlockProcedure { for _ in 0..<5 { sched_yield() } }
            procedure.name = "p\(index)"
            if index % 3 == 0 { procedure.addCondition(MutuallyExclusive<Void>(category: category)) }
            if index % 5 == 0 && index > 0 { procedure.addDependency(procedures[index - 1]) }
            procedures.append(procedure)
        }
        let all = procedures
        let done = LockedFlag()
        let askersFinished = (0..<2).map { _ in XCTestExpectation(description: "asker finished") }
        for (lane, finished) in askersFinished.enumerated() {
            // Dedicated threads: they spin, and must not take Dispatch's workers.
            Thread.detachNewThread {
                var index = lane
                var described = 0
                while !done.isSet {
                    if let reason = all[index % all.count].waitingReason { described += "\(reason)".count > 0 ? 1 : 0 }
                    if index % 64 == 0 { described += queue.waitingProcedures.count }
                    index += 2
                }
                _ = described
                finished.fulfill()
            }
        }
        for (index, procedure) in procedures.enumerated() {
            queue.addOperation(procedure)
            if index % 97 == 0 { procedures[index / 2].cancel() }
        }
        wait(forAll: procedures, timeout: 120)
        done.set()
        wait(for: askersFinished, timeout: 30)
        XCTAssertTrue(procedures.allSatisfy { $0.waitingReason == nil })
        XCTAssertTrue(queue.waitingProcedures.isEmpty)
    }
}

private final class LockedFlag: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
