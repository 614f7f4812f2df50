import Foundation
import Procedures

/// R1: the cost of a retry that succeeds at its second attempt, against running the two
/// attempts as plain procedures.
enum R1Retry {
    struct Failure: Error {}

    static let scenario = Scenario(
        id: "R1", title: "retry", sizes: [1_000, 10_000],
        statistics: [.median(.ratioAtMost(1.3))],
        ours: ours, baseline: baseline,
        note: "N `RetryProcedure`s (`maxAttempts: 2`, no wait) whose first attempt (a `BlockProcedure`) throws and "
            + "second succeeds, added to a `ProcedureQueue`, wait for the queue to drain; baseline: 2N empty "
            + "`BlockProcedure`s added to a `ProcedureQueue`.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        var retries: [RetryProcedure<BlockProcedure>] = []
        retries.reserveCapacity(n)
        let seconds = Stopwatch.time {
            for _ in 0..<n {
                var attempt = 0
                let retry = RetryProcedure(maxAttempts: 2) { () -> BlockProcedure in
                    attempt += 1
                    return attempt == 1 ? BlockProcedure { throw Failure() } : BlockProcedure {}
                }
                retries.append(retry)
                queue.addOperation(retry)
            }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(retries) {}
        return [seconds]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        var procedures: [BlockProcedure] = []
        procedures.reserveCapacity(2 * n)
        let seconds = Stopwatch.time {
            for _ in 0..<(2 * n) {
                let procedure = BlockProcedure(block: {})
                procedures.append(procedure)
                queue.addOperation(procedure)
            }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(procedures) {}
        return [seconds]
    }
}
