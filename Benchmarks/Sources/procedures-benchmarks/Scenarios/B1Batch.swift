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

    /// B1 once Dispatch has lent the process several times more threads than cores, as it does
    /// after work that blocks its threads (in a full run, P1's and N1's baselines): the batch's
    /// children then run on more threads than cores, all taking the batch's lock, which is
    /// where a lock that hands itself to a sleeping waiter falls into a convoy (B1 took 7.85 s
    /// instead of 0.16 s so). The first round waits for the pool to grow (about 2 s a thread).
    static let oversubscribed = Scenario(
        id: "B1d", title: "batch, Dispatch oversubscribed", sizes: [100_000],
        statistics: [.median(.ratioAtMost(1.3))],
        ours: { n in growDispatch(); return ours(n) },
        baseline: { n in growDispatch(); return baseline(n) },
        note: "B1 at 100,000, each half run once Dispatch's pool has at least \(oversubscribedThreads) threads "
            + "(grown by blocking its workers first, as a full run's P1 and N1 do).")

    static let oversubscribedThreads = 6 * ProcessInfo.processInfo.activeProcessorCount

    private static func growDispatch() {
        DispatchPool.grow(toAtLeast: oversubscribedThreads, quiet: true)
    }

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
