import Foundation
import Procedures

/// S3: one procedure releases N dependents at once, and one procedure waits for all N.
enum S3FanOutFanIn {
    static let scenario = Scenario(
        id: "S3", title: "fan-out/fan-in", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(3))],
        ours: ours, baseline: baseline,
        note: "a root `BlockProcedure`, N that depend on it and a sink that depends on all N, added to a "
            + "`ProcedureQueue` sink first and root last (so all N are parked and released together), wait for "
            + "the sink; baseline: N independent `BlockOperation`s on an `OperationQueue`. Creation is timed on both sides.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        var middle: [BlockProcedure] = []
        let seconds = Stopwatch.time {
            let root = BlockProcedure(block: {})
            let sink = BlockProcedure(block: {})
            middle.reserveCapacity(n)
            for _ in 0..<n {
                let procedure = BlockProcedure(block: {})
                procedure.addDependency(root)
                sink.addDependency(procedure)
                middle.append(procedure)
            }
            queue.addOperation(sink)
            for procedure in middle { queue.addOperation(procedure) }
            queue.addOperation(root)
            sink.waitUntilFinished()
        }
        return [seconds]
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
