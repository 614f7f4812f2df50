import Foundation
import Procedures

/// S2: a dependency chain. Ours runs at default width (the queue tracks readiness itself);
/// corelibs' `OperationQueue` needs width 1 to stay linear, so that is the baseline.
enum S2Chain {
    static let scenario = Scenario(
        id: "S2", title: "chain", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(3))],
        ours: ours, baseline: { chainOfOperations($0, width: 1) },
        note: "create N empty `BlockProcedure`s, each depending on the previous, add them in one `addOperations` batch to a "
            + "`ProcedureQueue` (default width), wait for the last; baseline: the same chain of `BlockOperation`s on an `OperationQueue` "
            + "with `maxConcurrentOperationCount = 1`. Creating the chain is timed on both sides.")

    /// Context only: what corelibs does with the same chain at default width (quadratic, 14 to
    /// 21 s at 10,000 here), so it runs once and at the small size only.
    static let rawQueue = Scenario(
        id: "S2-raw", title: "chain vs raw OperationQueue at default width", sizes: [10_000], rounds: 1,
        statistics: [.median(.informational)],
        ours: ours, baseline: { chainOfOperations($0, width: OperationQueue.defaultMaxConcurrentOperationCount) },
        note: "our S2 chain against the same `BlockOperation` chain on an `OperationQueue` at default width, "
            + "which corelibs schedules in quadratic time; one round only.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        var procedures: [BlockProcedure] = []
        let seconds = Stopwatch.time {
            procedures.reserveCapacity(n)
            for index in 0..<n {
                let procedure = BlockProcedure(block: {})
                if index > 0 { procedure.addDependency(procedures[index - 1]) }
                procedures.append(procedure)
            }
            queue.addOperations(procedures, waitUntilFinished: false)
            procedures.last?.waitUntilFinished()
        }
        releaseChain(&procedures)
        return [seconds]
    }

    static func chainOfOperations(_ n: Int, width: Int) -> [Double] {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = width
        var operations: [BlockOperation] = []
        let seconds = Stopwatch.time {
            operations.reserveCapacity(n)
            for index in 0..<n {
                let operation = BlockOperation(block: {})
                if index > 0 { operation.addDependency(operations[index - 1]) }
                operations.append(operation)
            }
            // One batch, so that the whole chain is parked in the queue at once (added one
            // by one, a fast chain runs while it is being added and little is ever parked).
            queue.addOperations(operations, waitUntilFinished: false)
            operations.last?.waitUntilFinished()
        }
        releaseChain(&operations)
        return [seconds]
    }
}
