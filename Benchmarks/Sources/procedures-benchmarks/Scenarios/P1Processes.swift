import Foundation
import Procedures
import ProceduresProcess

/// P1: running short programs as procedures against Foundation's `Process` in plain operations.
enum P1Processes {
    static let scenario = Scenario(
        id: "P1", title: "processes", sizes: [100, 1_000],
        statistics: [.median(.ratioAtMost(1.2))],
        ours: ours, baseline: baseline,
        note: "N `ProcessProcedure`s running /bin/true (output captured, the default) on a `ProcedureQueue` of width 8; "
            + "baseline: N `BlockOperation`s on an `OperationQueue` of width 8, each running `Process` /bin/true and "
            + "blocking in `waitUntilExit()`.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let procedures = (0..<n).map { _ in ProcessProcedure(executable: "/bin/true") }
        let seconds = Stopwatch.time {
            queue.addOperations(procedures, waitUntilFinished: false)
            queue.waitUntilAllOperationsAreFinished()
        }
        precondition(procedures.allSatisfy { $0.output?.status == .exited(0) }, "P1: a /bin/true failed")
        return [seconds]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        let url = URL(fileURLWithPath: "/bin/true")
        return [
            Stopwatch.time {
                for _ in 0..<n {
                    queue.addOperation(
                        BlockOperation {
                            let process = Process()
                            process.executableURL = url
                            do { try process.run() } catch { preconditionFailure("P1 baseline: \(error)") }
                            process.waitUntilExit()
                        })
                }
                queue.waitUntilAllOperationsAreFinished()
            }
        ]
    }
}
