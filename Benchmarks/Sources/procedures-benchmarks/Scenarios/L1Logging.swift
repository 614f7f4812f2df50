import Foundation
import Procedures

/// L1: what logging costs. Both halves run S1's workload (N empty `BlockProcedure`s through a
/// `ProcedureQueue`) in one process; only the logging setting differs.
///
/// Logging *off* (the default) cannot be compared in-process with a build that has no logging
/// calls at all; that comparison (S1 before and after the logging hooks went in, under
/// callgrind and interleaved wall-clock runs) is in this package's README. This scenario
/// shows the next step up: logging on at a quiet level (`.warning`: hooks active, nothing
/// to report, so nothing built or written) against logging off.
enum L1Logging {
    static let scenario = Scenario(
        id: "L1", title: "quiet logging", sizes: [10_000, 100_000],
        statistics: [.median(.informational)],
        ours: ours, baseline: baseline,
        note: "S1's workload with `ProcedureLog.minimumLevel = .warning` and a sink that discards; "
            + "baseline: the same with logging off (the default).")

    struct Discard: ProcedureLogSink {
        func write(_ entry: ProcedureLog.Entry) {}
    }

    static func ours(_ n: Int) -> [Double] {
        ProcedureLog.sink = Discard()
        ProcedureLog.minimumLevel = .warning
        defer { ProcedureLog.minimumLevel = nil }
        return S1Throughput.oursOnce(n)
    }

    static func baseline(_ n: Int) -> [Double] {
        ProcedureLog.minimumLevel = nil
        return S1Throughput.oursOnce(n)
    }
}
