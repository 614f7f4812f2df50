import Foundation
import Procedures

/// S8: what one satisfied condition adds to a procedure.
enum S8Conditions {
    static let scenario = Scenario(
        id: "S8", title: "condition", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(1.3))],
        ours: ours, baseline: baseline,
        note: "N empty `BlockProcedure`s, each with one satisfied `BlockCondition { true }`, added to a "
            + "`ProcedureQueue`, wait for it to drain; baseline: the same procedures without the condition.")

    static func ours(_ n: Int) -> [Double] { run(n, withCondition: true) }

    static func baseline(_ n: Int) -> [Double] { run(n, withCondition: false) }

    private static func run(_ n: Int, withCondition: Bool) -> [Double] {
        let queue = ProcedureQueue()
        // Kept outside the stopwatch so that freeing them is not timed.
        var procedures: [BlockProcedure] = []
        procedures.reserveCapacity(n)
        let seconds = Stopwatch.time {
            for _ in 0..<n {
                let procedure = BlockProcedure(block: {})
                if withCondition { procedure.addCondition(BlockCondition { true }) }
                procedures.append(procedure)
                queue.addOperation(procedure)
            }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(procedures) {}
        return [seconds]
    }
}
