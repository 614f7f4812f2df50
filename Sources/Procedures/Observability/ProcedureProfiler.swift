import Foundation
import ProceduresSupport

/// Records when each observed procedure was created, enqueued, ready, started and finished,
/// cancelled or not, with children attributed to their group; summarises and exports it.
///
/// ```swift
/// let profiler = ProcedureProfiler()
/// profiler.attach(to: queue)           // everything added to it, group children included
/// queue.addOperations(work, waitUntilFinished: false)
/// // … later, once the work is done:
/// print(profiler.summary())            // slowest procedures, waiting vs running
/// try profiler.writeChromeTrace(to: URL(fileURLWithPath: "trace.json"))  // open in Perfetto
/// ```
///
/// Memory is bounded: it keeps at most `capacity` finished profiles (the oldest are dropped
/// first) and follows at most `capacity` unfinished procedures at once (procedures beyond that
/// are not recorded). Both kinds of loss are counted in ``droppedCount`` and reported in the
/// summary and the trace file.
public final class ProcedureProfiler: ProcedureInstrument, @unchecked Sendable {
    // @unchecked: every mutable property is only touched under `lock`.
    private let lock = Lock()
    private let capacity: Int
    /// Unfinished procedures, by identity number.
    private var live: [UInt64: ProcedureProfile] = [:]
    /// Finished profiles in a ring: `finished[(head + i) % capacity]`.
    private var finished: [ProcedureProfile] = []
    private var head = 0
    private var dropped = 0

    /// A profiler that keeps at most `capacity` profiles of each kind (at least 1).
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// Records everything added to `queue` from now on, group children included.
    public func attach(to queue: ProcedureQueue) { ProcedureInstrumentation.attach(self, to: queue) }

    /// Records `procedure`, its children and what it produces. Attach before adding it to a
    /// queue: attaching to a procedure already enqueued (or a group's child) is ignored and
    /// reported as ``ProcedureMisuse/Kind/instrumentAttachedAfterEnqueue``.
    public func attach(to procedure: Procedure) { ProcedureInstrumentation.attach(self, to: procedure) }

    /// Stops recording; what was recorded stays available.
    public func detach() { ProcedureInstrumentation.detach(self) }

    /// How many procedures were not recorded or were dropped to keep within `capacity`.
    public var droppedCount: Int { lock.withLock { dropped } }

    /// Every profile kept: the finished ones in the order they finished, then the unfinished.
    public var profiles: [ProcedureProfile] {
        lock.withLock {
            Array(finished[head...]) + finished[..<head] + live.values.sorted { $0.identity.procedure.id < $1.identity.procedure.id }
        }
    }

    /// The profiles of `profile`'s children (if it is a group) and of what it produced.
    public func children(of profile: ProcedureProfile) -> [ProcedureProfile] {
        let id = profile.identity.procedure.id
        return profiles.filter { $0.identity.parent?.id == id || $0.identity.producer?.id == id }
    }

    /// Totals and the `limit` slowest finished procedures.
    public func summary(slowest limit: Int = 10) -> ProcedureProfile.Summary {
        ProcedureProfile.Summary(profiles, limit: limit, dropped: droppedCount)
    }

    /// Part of ``ProcedureInstrument``: updates the procedure's profile.
    public func record(_ event: ProcedureLifecycleEvent) {
        let id = event.identity.procedure.id
        let removed: ProcedureProfile? = lock.withLock {
            if case .enqueued = event.kind {
                guard live[id] == nil else { return nil }
                guard live.count < capacity else {
                    dropped += 1
                    return nil
                }
                var profile = ProcedureProfile(identity: event.identity)
                profile.createdAt = event.createdAt
                profile.enqueuedAt = event.timestamp
                profile.dependencies = event.dependencies
                live[id] = profile
                return nil
            }
            guard var profile = live[id] else { return nil }
            switch event.kind {
            case .enqueued, .willProduce: return nil
            case .ready: profile.readyAt = event.timestamp
            case .started: profile.startedAt = event.timestamp
            case .executing: profile.execution = .init(thread: event.thread, began: event.timestamp)
            case .executed: profile.execution?.ended = event.timestamp
            case .cancelled:
                profile.cancelled = true
                profile.cancelledAt = event.timestamp
            case .finished(let errors, let cancelled):
                profile.finishedAt = event.timestamp
                profile.errors = errors
                profile.cancelled = profile.cancelled || cancelled
                live[id] = nil
                return keepFinished(profile)
            }
            live[id] = profile
            return nil
        }
        _ = consume removed  // a dropped profile's errors are released outside the lock
    }

    /// Adds to the ring; returns the profile it pushed out, if any. Call under `lock`.
    private func keepFinished(_ profile: ProcedureProfile) -> ProcedureProfile? {
        if finished.count < capacity {
            finished.append(profile)
            return nil
        }
        let oldest = finished[head]
        finished[head] = profile
        head = (head + 1) % capacity
        dropped += 1
        return oldest
    }

    /// The recorded timeline in Chrome's trace-event format. See ``ChromeTrace``.
    public func chromeTrace() -> ChromeTrace { ChromeTrace(profiles: profiles, droppedCount: droppedCount) }

    /// Writes the timeline to `url` in Chrome's trace-event format (open it in Perfetto).
    ///
    /// - Throws: ``TraceFileError`` if the file cannot be written.
    public func writeChromeTrace(to url: URL) throws { try chromeTrace().write(to: url) }

    /// The dependency graph of the recorded procedures, in Graphviz's DOT language.
    public func dependencyGraph() -> DependencyGraph { DependencyGraph(profiles: profiles) }
}
