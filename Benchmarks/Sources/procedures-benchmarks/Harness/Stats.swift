import Foundation

enum Stats {
    /// Nearest-rank percentile (p in 0...100) of `samples`; NaN when empty.
    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        if p == 50 && sorted.count % 2 == 0 {
            // The usual median of an even count, so two rounds do not favour the slower one.
            return (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Wall-clock timing on the monotonic clock.
enum Stopwatch {
    /// Seconds taken by `body`.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return seconds(since: start)
    }

    /// A raw monotonic reading, for timings that start and stop on different threads.
    @inline(__always)
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func seconds(since start: UInt64) -> Double {
        seconds(from: start, to: now())
    }

    static func seconds(from start: UInt64, to end: UInt64) -> Double {
        Double(end &- start) / 1e9
    }
}
