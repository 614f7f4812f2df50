import Foundation
import Procedures

/// B1: what a `BatchProcedure` adds on top of running the same transforms on a queue directly.
enum B1Batch {
    static let width = 8

    static let scenario = Scenario(
        id: "B1", title: "batch", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(1.3))],
        ours: ours, baseline: baseline,
        note: "a `BatchProcedure` of N trivial transforms (`x + 1`) at width \(width) added to a `ProcedureQueue`, "
            + "wait for it, read its output array; baseline: N `TransformProcedure`s on a `ProcedureQueue` of width "
            + "\(width), wait for it to drain, read their outputs into an array.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        let input = Array(0..<n)
        // Declared outside the stopwatch so that freeing the procedures is not timed, here
        // or in the baseline.
        var batch: BatchProcedure<Int, Int>?
        var outputs: [Int] = []
        let seconds = Stopwatch.time {
            batch = BatchProcedure(input: input, width: width) { $0 &+ 1 }
            queue.addOperation(batch!)
            batch!.waitUntilFinished()
            outputs = batch!.output ?? []
        }
        precondition(outputs.count == n, "B1: the batch did not produce every output")
        withExtendedLifetime(batch) {}
        return [seconds]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = width
        var procedures: [TransformProcedure<Int, Int>] = []
        var outputs: [Int] = []
        let seconds = Stopwatch.time {
            procedures = (0..<n).map { TransformProcedure(input: $0) { $0 &+ 1 } }
            for procedure in procedures { queue.addOperation(procedure) }
            queue.waitUntilAllOperationsAreFinished()
            outputs = procedures.map { $0.output ?? 0 }
        }
        precondition(outputs.count == n, "B1: the baseline did not produce every output")
        withExtendedLifetime(procedures) {}
        return [seconds]
    }
}
