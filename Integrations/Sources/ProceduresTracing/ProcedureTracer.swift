import Foundation
import Procedures
import Tracing

/// Opens a swift-distributed-tracing span per procedure it is attached to.
///
/// ```swift
/// let tracing = ProcedureTracer()              // InstrumentationSystem.tracer
/// tracing.attach(to: queue)
/// ```
///
/// A span starts when the procedure is enqueued and ends when it finishes; it is named after
/// the procedure. Its parent is the span of the procedure's group, else of the procedure that
/// produced it, else `context` (the trace the work belongs to, given at init). The span gets
/// the events `ready` and `started`, the attributes `procedure.id` and, when cancelled,
/// `procedure.cancelled`; each error it finished with is recorded and sets an error status.
public final class ProcedureTracer: ProcedureInstrument, @unchecked Sendable {
    // @unchecked: `spans` is only touched under `lock`; the rest is immutable.
    private let tracer: any Tracer
    private let context: ServiceContext
    private let lock = NSLock()
    private var spans: [UInt64: any Span] = [:]

    /// Spans made by `tracer`, top-level ones children of `context`.
    public init(tracer: any Tracer = InstrumentationSystem.tracer, context: ServiceContext = .topLevel) {
        self.tracer = tracer
        self.context = context
    }

    /// Traces everything added to `queue`, group children included.
    public func attach(to queue: ProcedureQueue) { ProcedureInstrumentation.attach(self, to: queue) }

    /// Traces `procedure`, its children and what it produces.
    public func attach(to procedure: Procedure) { ProcedureInstrumentation.attach(self, to: procedure) }

    /// Stops tracing; spans already open end when their procedures finish only if still
    /// attached, so detach once the work is done.
    public func detach() { ProcedureInstrumentation.detach(self) }

    /// How many spans are open (procedures enqueued and not finished).
    public var openSpanCount: Int { lock.withLock { spans.count } }

    /// Part of `ProcedureInstrument`: opens, annotates and ends spans.
    public func record(_ event: ProcedureLifecycleEvent) {
        let id = event.identity.procedure.id
        switch event.kind {
        case .enqueued:
            let parentID = event.identity.parent?.id ?? event.identity.producer?.id
            let parent = lock.withLock { parentID.flatMap { spans[$0] } }
            let span = startSpan(event.identity.procedure.name, parent: parent?.context ?? context)
            span.attributes["procedure.id"] = Int64(truncatingIfNeeded: id)
            let replaced = lock.withLock { spans.updateValue(span, forKey: id) }
            replaced?.end()
        case .ready:
            lock.withLock { spans[id] }?.addEvent("ready")
        case .started:
            lock.withLock { spans[id] }?.addEvent("started")
        case .cancelled(let errors):
            guard let span = lock.withLock({ spans[id] }) else { return }
            span.attributes["procedure.cancelled"] = true
            span.addEvent(SpanEvent(name: "cancelled", attributes: ["errors": .int64(Int64(errors.count))]))
        case .finished(let errors, let cancelled):
            guard let span = lock.withLock({ spans.removeValue(forKey: id) }) else { return }
            if cancelled { span.attributes["procedure.cancelled"] = true }
            for error in errors { span.recordError(error) }
            if !errors.isEmpty { span.setStatus(SpanStatus(code: .error, message: "\(errors.count) error(s)")) }
            span.end()
        case .executing, .executed, .willProduce:
            break
        }
    }

    private func startSpan(_ name: String, parent: ServiceContext) -> any Span {
        tracer.startSpan(name, context: parent, ofKind: .internal, at: DefaultTracerClock.now,
            function: "execute()", file: #fileID, line: #line)
    }
}
