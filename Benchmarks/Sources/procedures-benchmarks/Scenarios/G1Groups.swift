import Foundation
import Procedures

/// G1: what a group costs on top of the procedures in it: N groups of one trivial child each
/// against 2N trivial procedures (a group and its child are two procedures).
enum G1Groups {
    static let scenario = Scenario(
        id: "G1", title: "one-child groups", sizes: [1_000, 10_000],
        statistics: [.median(.ratioAtMost(1.3))],
        ours: ours, baseline: baseline,
        note: "N `GroupProcedure`s of one empty `BlockProcedure` each, added to a `ProcedureQueue`, wait for it to "
            + "drain; baseline: 2N empty `BlockProcedure`s on a `ProcedureQueue`.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        return [
            Stopwatch.time {
                for _ in 0..<n { queue.addOperation(GroupProcedure(operations: [BlockProcedure(block: {})])) }
                queue.waitUntilAllOperationsAreFinished()
            }
        ]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        return [
            Stopwatch.time {
                for _ in 0..<(2 * n) { queue.addOperation(BlockProcedure(block: {})) }
                queue.waitUntilAllOperationsAreFinished()
            }
        ]
    }
}
