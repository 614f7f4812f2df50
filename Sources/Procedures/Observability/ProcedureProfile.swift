import Foundation

/// What a ``ProcedureProfiler`` recorded about one procedure.
///
/// Times are monotonic nanoseconds (`DispatchTime.now().uptimeNanoseconds`); a moment the
/// procedure did not reach (or that happened before the profiler was attached) is nil.
public struct ProcedureProfile: Sendable {
    /// The procedure, its group and its producer.
    public let identity: ProcedureIdentity
    /// The procedures it waited for.
    public internal(set) var dependencies: [ProcedureIdentity.Reference] = []
    /// When it was created (only if instrumentation was on by then).
    public internal(set) var createdAt: UInt64?
    /// When a queue or a group took it.
    public internal(set) var enqueuedAt: UInt64?
    /// When its dependencies were done and it was handed over to run.
    public internal(set) var readyAt: UInt64?
    /// When its queue started it.
    public internal(set) var startedAt: UInt64?
    /// When `execute()` was called and on which thread (nil if it never executed).
    public internal(set) var execution: Execution?
    /// When it finished.
    public internal(set) var finishedAt: UInt64?
    /// True if it was cancelled.
    public internal(set) var cancelled = false
    /// When it was cancelled (nil if it was not, or was cancelled before it was followed).
    public internal(set) var cancelledAt: UInt64?
    /// The errors it finished with.
    public internal(set) var errors: [any Error] = []

    /// The synchronous part of `execute()`: where and when it ran.
    public struct Execution: Sendable {
        /// The thread `execute()` ran on (a small number per thread).
        public let thread: UInt64
        /// When `execute()` was called.
        public let began: UInt64
        /// When `execute()` returned (nil while it runs).
        public internal(set) var ended: UInt64?
    }

    init(identity: ProcedureIdentity) { self.identity = identity }

    /// Its name.
    public var name: String { identity.procedure.name }
    /// True once it has finished.
    public var isFinished: Bool { finishedAt != nil }
    /// True if it finished with errors.
    public var failed: Bool { !errors.isEmpty }

    /// From enqueued to started: waiting for dependencies, then for a free slot in its queue.
    public var waitingTime: Duration? { Self.span(enqueuedAt, startedAt) }
    /// From enqueued to ready: waiting for its dependencies.
    public var dependencyWaitTime: Duration? { Self.span(enqueuedAt, readyAt) }
    /// From ready to started: waiting for a slot in its queue.
    public var queueWaitTime: Duration? { Self.span(readyAt, startedAt) }
    /// From started to finished (for a group, until its last child finished).
    public var runningTime: Duration? { Self.span(startedAt, finishedAt) }

    static func span(_ from: UInt64?, _ to: UInt64?) -> Duration? {
        guard let from, let to, to >= from else { return nil }
        return .nanoseconds(Int64(to - from))
    }
}

extension ProcedureProfile {
    /// Totals over a set of profiles, and the slowest of them.
    public struct Summary: Sendable, CustomStringConvertible {
        /// How many procedures were profiled.
        public let count: Int
        /// How many finished.
        public let finishedCount: Int
        /// How many were cancelled.
        public let cancelledCount: Int
        /// How many finished with errors.
        public let failedCount: Int
        /// The sum of their waiting times (enqueued to started).
        public let totalWaitingTime: Duration
        /// The sum of their running times (started to finished).
        public let totalRunningTime: Duration
        /// The finished procedures, longest running time first (at most `limit`).
        public let slowest: [ProcedureProfile]
        /// How many procedures the profiler dropped because its buffer was full.
        public let droppedCount: Int

        init(_ profiles: [ProcedureProfile], limit: Int, dropped: Int) {
            count = profiles.count
            finishedCount = profiles.count { $0.isFinished }
            cancelledCount = profiles.count { $0.cancelled }
            failedCount = profiles.count { $0.failed }
            totalWaitingTime = profiles.reduce(.zero) { $0 + ($1.waitingTime ?? .zero) }
            totalRunningTime = profiles.reduce(.zero) { $0 + ($1.runningTime ?? .zero) }
            // A heap would do for huge sets; sorting the finished ones is O(n log n) and fine.
            slowest = Array(
                profiles.filter { $0.runningTime != nil }.sorted { $0.runningTime! > $1.runningTime! }.prefix(limit))
            droppedCount = dropped
        }

        /// A few lines: counts, totals and the slowest procedures.
        public var description: String {
            var lines = [
                "\(count) procedures (\(finishedCount) finished, \(cancelledCount) cancelled, \(failedCount) failed"
                    + (droppedCount > 0 ? ", \(droppedCount) dropped)" : ")"),
                "waiting \(Self.format(totalWaitingTime)), running \(Self.format(totalRunningTime))",
            ]
            for profile in slowest {
                lines.append(
                    "  \(profile.identity): ran \(Self.format(profile.runningTime ?? .zero)), waited \(Self.format(profile.waitingTime ?? .zero))"
                )
            }
            return lines.joined(separator: "\n")
        }

        static func format(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
            return String(format: "%.3f ms", milliseconds)
        }
    }
}
