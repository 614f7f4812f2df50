import Foundation
import ProceduresSupport
import Synchronization

/// Receives the lifecycle events of the procedures it is attached to: the common ground of the
/// library's log, ``ProcedureProfiler`` and the ecosystem adapters in `Integrations/`.
///
/// Attach one with ``ProcedureInstrumentation/attach(_:to:)-(_,ProcedureQueue)`` (everything
/// added to a queue, group children included), ``ProcedureInstrumentation/attach(_:to:)-(_,Procedure)``
/// (one procedure, its children and what it produces) or ``ProcedureInstrumentation/attach(_:)``
/// (every procedure in the process).
///
/// `record(_:)` is called on the thread of the event, with no library lock held, possibly on
/// several threads at once: keep it short and thread-safe. A slow instrument slows the
/// procedures it observes (it never deadlocks them); hand heavy work to a queue of your own.
public protocol ProcedureInstrument: AnyObject, Sendable {
    /// One event of an observed procedure.
    func record(_ event: ProcedureLifecycleEvent)
}

/// Attaches and detaches ``ProcedureInstrument``s.
///
/// While nothing is attached and logging is off (``ProcedureLog/minimumLevel-swift.type.property``
/// is nil, the default, and no procedure has a level of its own), each hook in the library
/// costs one relaxed atomic load and a branch.
public enum ProcedureInstrumentation {
    /// Observes every procedure in the process from now on.
    public static func attach(_ instrument: any ProcedureInstrument) {
        Registry.shared.add(Attachment(instrument, scope: .everything))
    }

    /// Observes every procedure added to `queue` from now on, the children of its groups (at
    /// any depth) and what its procedures produce.
    public static func attach(_ instrument: any ProcedureInstrument, to queue: ProcedureQueue) {
        Registry.shared.add(Attachment(instrument, scope: .queue(WeakReference(queue))))
    }

    /// Observes `procedure`, its children if it is a group, and the operations it produces.
    ///
    /// Attach it before adding the procedure to a queue: an instrument follows a procedure from
    /// its enqueue. Attaching to one already enqueued (a group's children are, from the moment
    /// they are added to it) or finished would record nothing, so the call is ignored and
    /// reported as ``ProcedureMisuse/Kind/instrumentAttachedAfterEnqueue``; attach to its
    /// group or queue instead.
    public static func attach(_ instrument: any ProcedureInstrument, to procedure: Procedure) {
        // Decided under the procedure's lock, where its enqueue leaves `initial`: attached
        // before, the enqueue event finds the attachment; after, it is reported. No window
        // in which an attach racing the enqueue is neither followed nor reported.
        let attached = procedure.lock.withLock { () -> Bool in
            guard procedure.state.phase == .initial else { return false }
            Registry.shared.add(Attachment(instrument, scope: .procedure(WeakReference(procedure))))
            return true
        }
        guard attached else {
            ProcedureMisuse.report(
                .instrumentAttachedAfterEnqueue,
                "\(procedure.displayName) was already enqueued when an instrument was attached to it, so it would record nothing; it was not attached. Attach before adding the procedure to a queue, or attach to its group or queue.",
                subject: procedure)
            return
        }
    }

    /// Stops delivering events to `instrument`, from all its attachments.
    public static func detach(_ instrument: any ProcedureInstrument) {
        Registry.shared.remove(instrument)
    }

    // MARK: - Hooks (called by the core; each starts with the one cheap check)

    /// 1 while an instrument is attached, 2 while logging is on at a level where lifecycle
    /// events can show (`.warning` or below), 4 while some procedure has a log level of its
    /// own: a single load answers "does anybody listen?".
    static let activity = Atomic<UInt8>(0)
    static let instrumentsAttached: UInt8 = 1
    static let loggingOn: UInt8 = 2
    static let ownLogLevels: UInt8 = 4

    @inline(__always)
    static var isActive: Bool { activity.load(ordering: .relaxed) != 0 }

    static func setFlag(_ flag: UInt8, _ on: Bool) {
        if on {
            activity.bitwiseOr(flag, ordering: .relaxed)
        } else {
            activity.bitwiseAnd(~flag, ordering: .relaxed)
        }
    }

    /// A procedure was created (call only when ``isActive``).
    static func procedureCreated(_ procedure: Procedure) {
        let now = Self.now()
        procedure.lock.withLock { procedure.instrumentation.createdAt = now }
    }

    /// Sends `kind` for `procedure` to the log and the attached instruments (call only when
    /// ``isActive``, never under a lock).
    static func record(_ kind: ProcedureLifecycleEvent.Kind, _ procedure: Procedure, owner: (any ProcedureOwner)? = nil) {
        let queue = owner as? ProcedureQueue
        let group = owner as? GroupProcedure
        let flags = activity.load(ordering: .relaxed)
        // Whether the log wants this event: by the procedure's own level while some procedure
        // has one (looked up), else by the process-wide level. `listens`: the procedure's
        // level can show lifecycle events at all (its group and producer links are then kept).
        var listens = false
        var level: ProcedureLog.Level?
        if flags & (loggingOn | ownLogLevels) != 0 {
            let threshold =
                flags & ownLogLevels != 0
                ? ProcedureLogLevels.threshold(for: procedure) : ProcedureLogLevels.global.load(ordering: .relaxed)
            listens = threshold <= ProcedureLog.loudestLifecycleLevel.rawValue
            if listens, let wanted = ProcedureLog.level(of: kind), wanted.rawValue >= threshold { level = wanted }
        }
        // Logging at a quiet level with nothing attached: most events stop here, unbuilt;
        // only the group and producer links are kept, for the procedure's own messages.
        let instruments = flags & instrumentsAttached != 0 && Registry.shared.anyMayFollow(procedure, kind: kind, queue: queue, group: group)
        guard level != nil || instruments else {
            if listens {
                procedure.recordInstrumentationLinks(kind: kind, group: group)
            }
            return
        }
        let event = makeEvent(kind, procedure, group: group, timestamp: now())
        if let level { ProcedureLog.lifecycle(event, at: level) }
        if instruments { Registry.shared.deliver(event, enqueuedOn: queue) }
    }

    static func makeEvent(
        _ kind: ProcedureLifecycleEvent.Kind, _ procedure: Procedure, group: GroupProcedure?, timestamp: UInt64
    ) -> ProcedureLifecycleEvent {
        let info = procedure.instrumentationInfo(group: group, kind: kind)
        return ProcedureLifecycleEvent(
            kind: kind, procedure: procedure, info: info, timestamp: timestamp, thread: ThreadNumber.current)
    }

    /// Monotonic nanoseconds (the clock every event's timestamp comes from).
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static let nextID = Atomic<UInt64>(1)
}

/// What an instrument is attached to. Held weakly, and compared by identity (not by
/// `ObjectIdentifier`, whose address a later object may reuse once this one is freed).
enum InstrumentScope {
    case everything
    case queue(WeakReference<ProcedureQueue>)
    case procedure(WeakReference<Procedure>)
}

/// A weak reference to an object, as a value.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: `object` is set once, in init; a weak load is thread-safe.
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

/// One instrument and the procedures it currently follows.
final class Attachment: @unchecked Sendable {
    // @unchecked: `tracked` is only touched under `lock`; the rest is immutable.
    let instrument: any ProcedureInstrument
    let scope: InstrumentScope
    private let lock = Lock()
    /// Procedures followed and not finished yet (plus operations announced by a followed
    /// producer or group before they are enqueued).
    private var tracked = Set<ObjectIdentifier>()

    init(_ instrument: any ProcedureInstrument, scope: InstrumentScope) {
        self.instrument = instrument
        self.scope = scope
    }

    /// A cheap check before an event is built: false if this attachment certainly does not
    /// follow `procedure` (so procedures of other queues cost little while one is profiled).
    func mayFollow(
        _ procedure: Procedure, kind: ProcedureLifecycleEvent.Kind, queue: ProcedureQueue?, group: GroupProcedure?
    ) -> Bool {
        let id = ObjectIdentifier(procedure)
        switch scope {
        case .everything:
            return true
        case .queue(let target):
            if case .enqueued = kind, let queue, queue === target.object { return true }
        case .procedure(let target):
            if case .enqueued = kind, procedure === target.object { return true }
        }
        return lock.withLock {
            if tracked.contains(id) { return true }
            if case .enqueued = kind, let group { return tracked.contains(ObjectIdentifier(group)) }
            return false
        }
    }

    /// True if the event concerns a procedure this attachment follows (and updates the set).
    func follows(_ event: ProcedureLifecycleEvent, enqueuedOn queue: ProcedureQueue?) -> Bool {
        let id = ObjectIdentifier(event.procedure)
        switch scope {
        case .everything:
            return true
        case .queue(let target):
            if case .enqueued = event.kind, let queue, queue === target.object {
                lock.withLock { _ = tracked.insert(id) }
                return true
            }
        case .procedure(let target):
            if case .enqueued = event.kind, event.procedure === target.object {
                lock.withLock { _ = tracked.insert(id) }
                return true
            }
        }
        return lock.withLock { () -> Bool in
            if case .enqueued = event.kind, !tracked.contains(id), let parent = event.parentGroup,
                tracked.contains(ObjectIdentifier(parent))
            {
                tracked.insert(id)
                return true
            }
            guard tracked.contains(id) else { return false }
            switch event.kind {
            case .finished: tracked.remove(id)
            case .willProduce(let operation): tracked.insert(ObjectIdentifier(operation))
            default: break
            }
            return true
        }
    }
}

/// The attached instruments, read by every event while any is attached.
final class Registry: @unchecked Sendable {
    // @unchecked: `attachments` is only touched under `lock`.
    static let shared = Registry()
    private let lock = Lock()
    private var attachments: [Attachment] = []

    func add(_ attachment: Attachment) {
        lock.withLock { attachments.append(attachment) }
        ProcedureInstrumentation.setFlag(ProcedureInstrumentation.instrumentsAttached, true)
    }

    func remove(_ instrument: any ProcedureInstrument) {
        let (removed, empty) = lock.withLock { () -> ([Attachment], Bool) in
            let removed = attachments.filter { $0.instrument === instrument }
            attachments.removeAll { $0.instrument === instrument }
            return (removed, attachments.isEmpty)
        }
        _ = consume removed  // released outside the lock
        if empty { ProcedureInstrumentation.setFlag(ProcedureInstrumentation.instrumentsAttached, false) }
    }

    /// True if some attachment may follow `procedure` (see ``Attachment/mayFollow(_:kind:queue:group:)``).
    func anyMayFollow(
        _ procedure: Procedure, kind: ProcedureLifecycleEvent.Kind, queue: ProcedureQueue?, group: GroupProcedure?
    ) -> Bool {
        let current = lock.withLock { attachments }
        return current.contains { $0.mayFollow(procedure, kind: kind, queue: queue, group: group) }
    }

    func deliver(_ event: ProcedureLifecycleEvent, enqueuedOn queue: ProcedureQueue?) {
        let current = lock.withLock { attachments }
        for attachment in current where attachment.follows(event, enqueuedOn: queue) {
            attachment.instrument.record(event)
            if case .enqueued = event.kind, let group = event.procedure as? GroupProcedure {
                announceChildren(of: group, to: attachment, at: event.timestamp)
            }
        }
    }

    /// A group's children are usually enqueued on its private queue when the group is made,
    /// before anything follows the group: once it is followed, they are announced to the
    /// attachment as enqueued (at the group's enqueue time), and ready if they already are, at
    /// any depth.
    private func announceChildren(of group: GroupProcedure, to attachment: Attachment, at timestamp: UInt64) {
        for case let child as Procedure in group.children where child.isEnqueued && !child.isFinished {
            let event = ProcedureInstrumentation.makeEvent(.enqueued, child, group: group, timestamp: timestamp)
            guard attachment.follows(event, enqueuedOn: nil) else { continue }
            attachment.instrument.record(event)
            // A child without dependencies is ready at once, on the group's suspended queue.
            if child.lock.withLock({ child.state.phase >= .ready }) {
                let ready = ProcedureInstrumentation.makeEvent(.ready, child, group: nil, timestamp: timestamp)
                if attachment.follows(ready, enqueuedOn: nil) { attachment.instrument.record(ready) }
            }
            if let nested = child as? GroupProcedure { announceChildren(of: nested, to: attachment, at: timestamp) }
        }
    }
}

/// A small number per thread (1, 2, 3… in order of first use), for trace files and logs.
enum ThreadNumber {
    private final class Box { let value: UInt64; init(_ value: UInt64) { self.value = value } }
    private static let counter = Atomic<UInt64>(1)
    private static let perThread = PerThread { Box(counter.wrappingAdd(1, ordering: .relaxed).oldValue) }

    static var current: UInt64 { perThread.current.value }
}
