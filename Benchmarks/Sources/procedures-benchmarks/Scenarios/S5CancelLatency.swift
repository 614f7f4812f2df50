import Foundation
import Procedures

#if canImport(Glibc)
    import Glibc
#endif

/// S5: how soon an executing procedure that reacts to cancellation is finished.
enum S5CancelLatency {
    static let scenario = Scenario(
        id: "S5", title: "cancel latency", sizes: [2_000],
        statistics: [.percentile(50, .ratioAtMost(5)), .percentile(99, .informational)],
        ours: ours, baseline: baseline,
        note: "size = samples per round. A `BlockProcedure(asyncBlock:)` that never finishes by itself and calls "
            + "`finish()` from a did-cancel observer; once it is executing (and after a short settle), time from "
            + "`cancel()` to its did-finish observer. Baseline: one round trip to a serial `DispatchQueue` "
            + "(`async` a block that signals a semaphore the caller waits on), after the same settle.")

    /// Lets the worker thread that ran `execute()` return to its pool, so the cancel meets an
    /// idle executing procedure rather than the tail of its own start-up.
    private static func settle() { usleep(20) }

    static func ours(_ samples: Int) -> [Double] {
        let queue = ProcedureQueue()
        var latencies: [Double] = []
        latencies.reserveCapacity(samples)
        for _ in 0..<samples {
            let executing = DispatchSemaphore(value: 0)
            let finishedAt = Slot<UInt64>()
            let procedure = BlockProcedure(asyncBlock: { _ in })
            procedure.addDidExecuteBlockObserver { _ in executing.signal() }
            procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
            procedure.addDidFinishBlockObserver { _, _ in finishedAt.fill(Stopwatch.now()) }
            queue.addOperation(procedure)
            executing.wait()
            settle()
            let start = Stopwatch.now()
            procedure.cancel()
            latencies.append(Stopwatch.seconds(from: start, to: finishedAt.wait()))
        }
        return latencies
    }

    static func baseline(_ samples: Int) -> [Double] {
        let queue = DispatchQueue(label: "S5 baseline")
        let back = DispatchSemaphore(value: 0)
        var latencies: [Double] = []
        latencies.reserveCapacity(samples)
        for _ in 0..<samples {
            settle()
            let start = Stopwatch.now()
            queue.async { back.signal() }
            back.wait()
            latencies.append(Stopwatch.seconds(since: start))
        }
        return latencies
    }
}
