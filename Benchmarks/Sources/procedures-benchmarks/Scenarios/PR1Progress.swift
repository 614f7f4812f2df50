import Foundation
import Procedures

/// PR1 and PR2: what progress costs a trivial procedure, against S1's workload in the same run.
///
/// PR1 is the promise (issue 21): progress nobody observes is nearly free. Each procedure
/// reports its units, as a subclass that counts its work does, and nobody asks for them: the
/// units are kept in the procedure (one short lock, two stores) and no `Progress` is made.
/// PR2 shows what laziness saves: the same procedures with their Foundation `Progress` asked
/// for (corelibs' initialiser alone costs about 1.5 µs).
enum PR1Progress {
    static let scenario = Scenario(
        id: "PR1", title: "progress, unobserved", sizes: [10_000, 100_000],
        statistics: [.median(.ratioAtMost(1.05))],
        ours: { run($0, askForProgress: false) }, baseline: S1Throughput.ours,
        note: "S1's workload where each procedure reports its units (`reportProgress(completed: 1, of: 1)`) and "
            + "nobody observes them; baseline: S1's own half (N empty `BlockProcedure`s on a `ProcedureQueue`).")

    static let asked = Scenario(
        id: "PR2", title: "progress, Foundation object asked for", sizes: [10_000, 100_000],
        statistics: [.median(.informational)],
        ours: { run($0, askForProgress: true) }, baseline: S1Throughput.ours,
        note: "PR1's workload with each procedure's `progress` (Foundation's object) asked for before it is added; "
            + "baseline: S1's own half. What making the object lazily saves.")

    private static func run(_ n: Int, askForProgress: Bool) -> [Double] {
        let queue = ProcedureQueue()
        return [
            Stopwatch.time {
                for _ in 0..<n {
                    let procedure = BlockProcedure { procedure in
                        procedure.reportProgress(completed: 1, of: 1)
                        procedure.finish()
                    }
                    if askForProgress { _ = procedure.progress }
                    queue.addOperation(procedure)
                }
                queue.waitUntilAllOperationsAreFinished()
            }
        ]
    }
}
