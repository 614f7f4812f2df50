import Foundation
import Procedures

/// S4: what a group adds on top of running the same procedures on a queue directly.
enum S4Group {
    static let scenario = Scenario(
        id: "S4", title: "group", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(1.5))],
        ours: ours, baseline: baseline,
        note: "a `GroupProcedure(operations:)` of N empty `BlockProcedure`s added to a `ProcedureQueue`, wait for the "
            + "group; baseline: the N `BlockProcedure`s added to a `ProcedureQueue` directly, wait for it to drain.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        // Declared outside the stopwatch so that freeing the procedures is not timed, here
        // or in the baseline.
        var group: GroupProcedure?
        let seconds = Stopwatch.time {
            group = GroupProcedure(operations: (0..<n).map { _ in BlockProcedure(block: {}) })
            queue.addOperation(group!)
            group!.waitUntilFinished()
        }
        withExtendedLifetime(group) {}
        return [seconds]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        var procedures: [BlockProcedure] = []
        let seconds = Stopwatch.time {
            procedures = (0..<n).map { _ in BlockProcedure(block: {}) }
            for procedure in procedures { queue.addOperation(procedure) }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(procedures) {}
        return [seconds]
    }
}
