import Foundation
import Procedures

/// S1: the cost of one trivial procedure, end to end, against Foundation's own operation.
enum S1Throughput {
    static let scenario = Scenario(
        id: "S1", title: "throughput", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(0.6))],
        ours: ours, baseline: baseline,
        note: "create N empty `BlockProcedure`s, add each to a `ProcedureQueue`, wait for the queue to drain; "
            + "baseline: the same with `BlockOperation`s on an `OperationQueue` (both default width).")

    static func ours(_ n: Int) -> [Double] { oursOnce(n) }

    /// The measured half, shared with L1.
    static func oursOnce(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        return [
            Stopwatch.time {
                for _ in 0..<n { queue.addOperation(BlockProcedure(block: {})) }
                queue.waitUntilAllOperationsAreFinished()
            }
        ]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = OperationQueue()
        return [
            Stopwatch.time {
                for _ in 0..<n { queue.addOperation(BlockOperation(block: {})) }
                queue.waitUntilAllOperationsAreFinished()
            }
        ]
    }
}
