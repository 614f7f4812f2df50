import CoreMetrics
import Foundation
import Procedures

/// Records swift-metrics counters and timers for the procedures it is attached to.
///
/// ```swift
/// let metrics = ProcedureMetrics()            // MetricsSystem.factory, labels "procedures_…"
/// metrics.attach(to: queue)
/// ```
///
/// | metric | kind | when |
/// |---|---|---|
/// | `procedures_started_total` | counter | its queue started it |
/// | `procedures_finished_total` | counter | it finished (however) |
/// | `procedures_failed_total` | counter | it finished with errors |
/// | `procedures_cancelled_total` | counter | it finished cancelled |
/// | `procedures_duration` | timer | started to finished |
/// | `procedures_queue_wait` | timer | enqueued to started (dependencies, then a free slot) |
///
/// Every metric carries `dimensions`; with `dimensionByName` each also gets a `procedure`
/// dimension with the procedure's name (keep names few: each is a time series).
public final class ProcedureMetrics: ProcedureInstrument, @unchecked Sendable {
    // @unchecked: `enqueued`, `started` and `byName` are only touched under `lock`; the rest is
    // immutable after init.
    private let factory: any MetricsFactory
    private let prefix: String
    private let dimensions: [(String, String)]
    private let dimensionByName: Bool
    private let lock = NSLock()
    private var enqueued: [UInt64: UInt64] = [:]
    private var started: [UInt64: UInt64] = [:]
    private var byName: [String: Instruments] = [:]
    private let shared: Instruments

    private struct Instruments {
        let started, finished, failed, cancelled: Counter
        let duration, queueWait: CoreMetrics.Timer
    }

    /// Metrics labelled `<prefix>_started_total` and so on, made by `factory`.
    public init(
        factory: any MetricsFactory = MetricsSystem.factory, prefix: String = "procedures",
        dimensions: [(String, String)] = [], dimensionByName: Bool = false
    ) {
        self.factory = factory
        self.prefix = prefix
        self.dimensions = dimensions
        self.dimensionByName = dimensionByName
        shared = Self.makeInstruments(factory: factory, prefix: prefix, dimensions: dimensions)
    }

    private static func makeInstruments(
        factory: any MetricsFactory, prefix: String, dimensions: [(String, String)]
    ) -> Instruments {
        Instruments(
            started: Counter(label: "\(prefix)_started_total", dimensions: dimensions, factory: factory),
            finished: Counter(label: "\(prefix)_finished_total", dimensions: dimensions, factory: factory),
            failed: Counter(label: "\(prefix)_failed_total", dimensions: dimensions, factory: factory),
            cancelled: Counter(label: "\(prefix)_cancelled_total", dimensions: dimensions, factory: factory),
            duration: CoreMetrics.Timer(label: "\(prefix)_duration", dimensions: dimensions, factory: factory),
            queueWait: CoreMetrics.Timer(label: "\(prefix)_queue_wait", dimensions: dimensions, factory: factory))
    }

    /// Measures everything added to `queue`, group children included.
    public func attach(to queue: ProcedureQueue) { ProcedureInstrumentation.attach(self, to: queue) }

    /// Measures `procedure`, its children and what it produces.
    public func attach(to procedure: Procedure) { ProcedureInstrumentation.attach(self, to: procedure) }

    /// Measures every procedure in the process.
    public func attachToEveryProcedure() { ProcedureInstrumentation.attach(self) }

    /// Stops measuring.
    public func detach() { ProcedureInstrumentation.detach(self) }

    /// Part of `ProcedureInstrument`: updates the metrics.
    public func record(_ event: ProcedureLifecycleEvent) {
        let id = event.identity.procedure.id
        switch event.kind {
        case .enqueued:
            lock.withLock { enqueued[id] = event.timestamp }
        case .started:
            let since = lock.withLock { () -> UInt64? in
                started[id] = event.timestamp
                return enqueued.removeValue(forKey: id)
            }
            let metrics = instruments(for: event)
            metrics.started.increment()
            if let since, event.timestamp >= since { metrics.queueWait.recordNanoseconds(Int64(event.timestamp - since)) }
        case .finished(let errors, let cancelled):
            let since = lock.withLock { () -> UInt64? in
                enqueued[id] = nil
                return started.removeValue(forKey: id)
            }
            let metrics = instruments(for: event)
            metrics.finished.increment()
            if !errors.isEmpty { metrics.failed.increment() }
            if cancelled { metrics.cancelled.increment() }
            if let since, event.timestamp >= since { metrics.duration.recordNanoseconds(Int64(event.timestamp - since)) }
        default:
            break
        }
    }

    private func instruments(for event: ProcedureLifecycleEvent) -> Instruments {
        guard dimensionByName else { return shared }
        let name = event.identity.procedure.name
        if let known = lock.withLock({ byName[name] }) { return known }
        let made = Self.makeInstruments(factory: factory, prefix: prefix, dimensions: dimensions + [("procedure", name)])
        return lock.withLock {
            if let known = byName[name] { return known }
            byName[name] = made
            return made
        }
    }
}
