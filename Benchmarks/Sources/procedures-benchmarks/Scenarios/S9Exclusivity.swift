import Foundation
import Procedures

/// S9: mutual exclusion against the simplest way to get one-at-a-time, a width-1 queue.
enum S9Exclusivity {
    static let scenario = Scenario(
        id: "S9", title: "exclusivity", sizes: [1_000, 10_000],
        statistics: [.median(.ratioAtMost(1.5))],
        ours: ours, baseline: baseline,
        note: "N empty `BlockProcedure`s, each with `MutuallyExclusive(category:)` on one shared category, added to a "
            + "default-width `ProcedureQueue`, wait for it to drain; baseline: the same procedures without the "
            + "condition on a `ProcedureQueue` of width 1.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        let category = "S9-\(UUID().uuidString)"
        var procedures: [BlockProcedure] = []
        procedures.reserveCapacity(n)
        let seconds = Stopwatch.time {
            for _ in 0..<n {
                let procedure = BlockProcedure(block: {})
                procedure.addCondition(MutuallyExclusive(category: category))
                procedures.append(procedure)
                queue.addOperation(procedure)
            }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(procedures) {}
        return [seconds]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        var procedures: [BlockProcedure] = []
        procedures.reserveCapacity(n)
        let seconds = Stopwatch.time {
            for _ in 0..<n {
                let procedure = BlockProcedure(block: {})
                procedures.append(procedure)
                queue.addOperation(procedure)
            }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(procedures) {}
        return [seconds]
    }
}
