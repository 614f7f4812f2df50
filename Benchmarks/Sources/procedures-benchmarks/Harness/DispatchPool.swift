import Foundation

/// Grows libdispatch's pool of worker threads (`--grow-dispatch`).
///
/// On Linux libdispatch starts one worker per core and adds one, about every two seconds, while
/// its workers are blocked and work waits; idle workers stay for a while. Scenarios whose
/// baselines block Dispatch threads (P1, N1) leave a full run with several times more workers
/// than cores, and a later scenario whose work spreads over every worker then has more
/// threads taking its locks than there are cores to run them: the conditions for a lock
/// convoy, which B1 once fell into that way. This makes those conditions for a run of one
/// scenario.
enum DispatchPool {
    /// Blocks Dispatch's workers until the process has `target` threads (or two minutes have
    /// passed); says how it went on stderr unless `quiet`.
    static func grow(toAtLeast target: Int, quiet: Bool = false) {
        guard threadCount() < target else { return }
        let started = Stopwatch.now()
        let blockers = 8 * ProcessInfo.processInfo.activeProcessorCount
        while threadCount() < target, Stopwatch.seconds(since: started) < 120 {
            let group = DispatchGroup()
            for _ in 0..<blockers { DispatchQueue.global().async(group: group) { usleep(200_000) } }
            group.wait()
        }
        guard !quiet else { return }
        let line = String(
            format: "Dispatch's pool: %d threads in the process after %.1f s\n", threadCount(),
            Stopwatch.seconds(since: started))
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The process's threads, from `/proc/self/task` (0 where there is none).
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
