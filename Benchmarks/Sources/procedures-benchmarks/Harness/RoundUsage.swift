import Foundation

/// What one half of one round cost the whole process (`--rusage`): wall time, user and
/// system CPU time, and voluntary and involuntary context switches, from `getrusage`; and how
/// many threads the process had when it ended (Dispatch grows its pool when workers block).
///
/// A round that is slow for want of CPU shows user time near the wall time times the cores;
/// one that waits shows voluntary switches (a thread went to sleep: a lock, a condition, an
/// idle Dispatch worker); one that spins shows user time without them. Cheap enough not to
/// change what it measures, unlike a sampling profiler.
enum RoundUsage {
    /// Runs `body`; with a label, prints its usage to stderr.
    static func measure<T>(_ label: String?, _ body: () -> T) -> T {
        guard let label else { return body() }
        let before = usage()
        let started = Stopwatch.now()
        let result = body()
        let wall = Stopwatch.seconds(since: started)
        let after = usage()
        let line = String(
            format: "  rusage %@: wall %.3f s, user %.3f s, system %.3f s, voluntary switches %ld, involuntary %ld, threads %ld\n",
            label, wall, seconds(after.ru_utime) - seconds(before.ru_utime),
            seconds(after.ru_stime) - seconds(before.ru_stime), after.ru_nvcsw - before.ru_nvcsw,
            after.ru_nivcsw - before.ru_nivcsw, DispatchPool.threadCount())
        FileHandle.standardError.write(Data(line.utf8))
        return result
    }

    private static func usage() -> rusage {
        var value = rusage()
        getrusage(RUSAGE_SELF.rawValue, &value)
        return value
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }
}
