import Foundation

extension PipelineRun {
    /// What stops a run before its steps have all finished, and the exit status it gives.
    enum StopReason: Sendable {
        /// SIGINT (Ctrl-C): 130.
        case interrupted
        /// SIGTERM: 143.
        case terminated
        /// SIGHUP (the terminal went away): 129.
        case hungUp
        /// A write found standard output closed (`steps … | head`): 141, the status of a
        /// program SIGPIPE killed, but only once every step's processes have ended.
        case outputClosed
        /// `--timeout`: 124.
        case timedOut
        /// `--watch` saw a change: the run stops to start again.
        case sourcesChanged

        /// The signals that stop a run. Each is ignored as a signal and seen as an event by a
        /// `DispatchSource`, so its handler runs on a queue, not in a signal context.
        static let signals: [(number: Int32, reason: StopReason)] = [(SIGINT, .interrupted), (SIGTERM, .terminated), (SIGHUP, .hungUp)]

        var exitStatus: Int32 {
            switch self {
            case .interrupted: return 130
            case .terminated: return 143
            case .hungUp: return 129
            case .outputClosed: return 141
            case .timedOut: return 124
            case .sourcesChanged: return 1
            }
        }

        /// Whether a second one, while the run stops, kills every step's processes at once:
        /// whoever sends a signal twice will not wait out the grace period.
        var isSignal: Bool { Self.signals.contains { $0.reason == self } }

        /// How the summary's verdict begins: "Interrupted in 1.20s: …".
        var verdict: String {
            switch self {
            case .interrupted: return "Interrupted"
            case .terminated: return "Terminated"
            case .hungUp: return "Hung up"
            case .outputClosed: return "Stopped (standard output closed)"
            case .timedOut: return "Timed out"
            case .sourcesChanged: return "Stopped (sources changed)"
            }
        }
    }
}
