import Foundation
import Procedures

/// T1: what a timeout that never fires adds to a procedure.
enum T1Timeouts {
    static let scenario = Scenario(
        id: "T1", title: "timeouts", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(1.3))],
        ours: ours, baseline: baseline,
        note: "N empty `BlockProcedure`s, each with `timeout(after: 3600)` (a timeout that never fires), added to a "
            + "`ProcedureQueue`, wait for the queue to drain; baseline: the same without the timeouts.")

    static func ours(_ n: Int) -> [Double] {
        run(n, timeout: true)
    }

    static func baseline(_ n: Int) -> [Double] {
        run(n, timeout: false)
    }

    private static func run(_ n: Int, timeout: Bool) -> [Double] {
        let queue = ProcedureQueue()
        var procedures: [BlockProcedure] = []
        procedures.reserveCapacity(n)
        let seconds = Stopwatch.time {
            for _ in 0..<n {
                let procedure = BlockProcedure(block: {})
                if timeout { procedure.timeout(after: 3600) }
                procedures.append(procedure)
                queue.addOperation(procedure)
            }
            queue.waitUntilAllOperationsAreFinished()
        }
        withExtendedLifetime(procedures) {}
        return [seconds]
    }
}
