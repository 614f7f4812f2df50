import Foundation
import Procedures

/// S1t: a procedure against a Swift task: N trivial procedures on a `ProcedureQueue` against
/// N child tasks of one `TaskGroup`.
enum S1tTaskGroup {
    static let scenario = Scenario(
        id: "S1t", title: "procedure vs task", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(1.0))],
        ours: S1Throughput.oursOnce, baseline: baseline,
        note: "ours as in S1; baseline: N empty child tasks of one `withTaskGroup`, awaited from a detached task "
            + "(the benchmark thread waits on a semaphore, which the library itself never does).")

    static func baseline(_ n: Int) -> [Double] {
        let done = DispatchSemaphore(value: 0)
        let seconds = Stopwatch.time {
            Task.detached {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<n { group.addTask {} }
                    await group.waitForAll()
                }
                done.signal()
            }
            done.wait()
        }
        return [seconds]
    }
}
