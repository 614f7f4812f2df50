import Foundation
import Procedures

/// S6: cancelling a group whose N children are all running and stop when told to.
enum S6GroupCancel {
    static let scenario = Scenario(
        id: "S6", title: "group cancel", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(2))],
        ours: ours, baseline: baseline,
        note: "a `GroupProcedure` of N children that stay executing until cancelled (they finish from "
            + "`procedureDidCancel`); once all N execute, time from the group's `cancel()` to its did-finish observer. "
            + "Baseline: create N `BlockOperation`s, add them to a suspended `OperationQueue`, cancel each, resume, "
            + "wait for the queue to drain (all of it timed).")

    /// Executes until cancelled; tells `running` when it starts executing.
    final class RunsUntilCancelled: Procedure, @unchecked Sendable {
        // @unchecked: `running` is immutable and itself thread-safe.
        private let running: Countdown

        init(running: Countdown) {
            self.running = running
            super.init()
        }

        override func execute() { running.arrive() }

        override func procedureDidCancel(withErrors errors: [any Error]) { finish() }
    }

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        let running = Countdown(n)
        let group = GroupProcedure(operations: (0..<n).map { _ in RunsUntilCancelled(running: running) })
        let finishedAt = Slot<UInt64>()
        group.addDidFinishBlockObserver { _, _ in finishedAt.fill(Stopwatch.now()) }
        queue.addOperation(group)
        running.reachedZero.wait()
        let start = Stopwatch.now()
        group.cancel()
        return [Stopwatch.seconds(from: start, to: finishedAt.wait())]
    }

    static func baseline(_ n: Int) -> [Double] {
        // Freed after the stopwatch stops, as our group and its children are.
        var operations: [BlockOperation] = []
        let seconds = Stopwatch.time {
            let queue = OperationQueue()
            queue.isSuspended = true
            operations = (0..<n).map { _ in BlockOperation(block: {}) }
            for operation in operations { queue.addOperation(operation) }
            for operation in operations { operation.cancel() }
            queue.isSuspended = false
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(operations) {}
        return [seconds]
    }
}
