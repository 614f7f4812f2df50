import Foundation

/// One half of a scenario (ours or the baseline): runs the workload at `size` and returns
/// what it measured. Usually that is one number (seconds for a timing, bytes per item for
/// memory); a latency half returns one sample per event. Each half times only what the
/// scenario is about, so its setup and teardown can sit outside the stopwatch.
typealias Half = @Sendable (_ size: Int) -> [Double]

/// What a figure is measured in, for printing.
enum Unit: Sendable {
    case seconds
    case bytesPerItem
}

/// When a figure "meets" its target.
enum Target: Sendable {
    /// ours / baseline must be at most this.
    case ratioAtMost(Double)
    /// Ours alone must grow at most this much from N to 10N (linear is about 10).
    case growthAtMost(Double)
    /// Reported for context only.
    case informational

    var label: String {
        switch self {
        case .ratioAtMost(let limit): return "≤ \(Format.plain(limit))x"
        case .growthAtMost(let limit): return "growth ≤ \(Format.plain(limit))"
        case .informational: return "info"
        }
    }
}

/// How a row's figure is drawn from the samples pooled over every round.
struct Statistic: Sendable {
    var name: String?
    var target: Target
    var reduce: @Sendable ([Double]) -> Double

    /// One sample per round (a whole-batch timing): the median of the rounds.
    static func median(_ target: Target) -> Statistic {
        Statistic(name: nil, target: target) { Stats.percentile($0, 50) }
    }

    /// Many samples per round (latencies): a percentile of all of them.
    static func percentile(_ p: Double, _ target: Target) -> Statistic {
        Statistic(name: "p\(Format.plain(p))", target: target) { Stats.percentile($0, p) }
    }
}

/// A workload measured twice in the same process, our way and the baseline's way.
struct Scenario: Sendable {
    /// Short id ("S1"), used by `--only` and `--profile`.
    var id: String
    var title: String
    /// Usually N and 10N; the growth column compares the last size with the first.
    var sizes: [Int]
    var unit: Unit = .seconds
    /// Overrides the run's round count (1 for a quadratic baseline that takes seconds).
    var rounds: Int?
    var statistics: [Statistic]
    /// nil: not wired up yet; the row says so (the baseline still runs, so it keeps building).
    var ours: Half?
    var baseline: Half?
    /// A short explanation printed under the table (what exactly each half does).
    var note: String
}
