import Foundation

/// Where a procedure is in its life, as one comparable value for queries (`isExecuting`,
/// `isFinished`, summaries). Only ``ProcedureLifecycle`` decides it.
enum ProcedurePhase: UInt8, Comparable, CustomStringConvertible {
    case initial, waiting, ready, started, executing, finishing, finished

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String {
        switch self {
        case .initial: return "initial"
        case .waiting: return "waiting"
        case .ready: return "ready"
        case .started: return "started"
        case .executing: return "executing"
        case .finishing: return "finishing"
        case .finished: return "finished"
        }
    }
}

/// Cancellation moves from `none` to `requested` (accepted: `isCancelled` is true from here;
/// the will-cancel hooks have not run yet) to `cancelled` (the cancel event was handled: the
/// procedure's own machinery, readiness and start, treats it as cancelled from here, so that
/// the cancel hooks always run before a cancelled procedure skips `execute()` or finishes).
enum CancellationPhase: UInt8 {
    case none, requested, cancelled
}
