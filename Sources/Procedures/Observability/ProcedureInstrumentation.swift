import Foundation
import ProceduresSupport
import Synchronization

/// Attaches and detaches ``ProcedureInstrument``s.
///
/// While nothing is attached and logging is off (``ProcedureLog/minimumLevel-swift.type.property``
/// is nil, the default, and no procedure has a level of its own), each hook in the library
/// costs one relaxed atomic load and a branch.
public enum ProcedureInstrumentation {
    /// Observes every procedure in the process from now on.
    public static func attach(_ instrument: any ProcedureInstrument) {
        InstrumentRegistry.shared.add(InstrumentAttachment(instrument, scope: .everything))
    }

    /// Observes every procedure added to `queue` from now on, the children of its groups (at
    /// any depth) and what its procedures produce.
    public static func attach(_ instrument: any ProcedureInstrument, to queue: ProcedureQueue) {
        InstrumentRegistry.shared.add(InstrumentAttachment(instrument, scope: .queue(WeakReference(queue))))
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
            InstrumentRegistry.shared.add(InstrumentAttachment(instrument, scope: .procedure(WeakReference(procedure))))
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
        InstrumentRegistry.shared.remove(instrument)
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
        procedure.lock.withLock { procedure.state.instrumentation.createdAt = now }
    }

    /// Sends `kind` for `procedure` to the log and the attached instruments (call only when
    /// ``isActive``, never under a lock).
    static func record(_ kind: ProcedureLifecycleEvent.Kind, _ procedure: Procedure, owner: (any ProcedureOwner)? = nil) {
        let queue = owner?.ownerRole.queue
        let group = owner?.ownerRole.group
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
        let instruments = flags & instrumentsAttached != 0 && InstrumentRegistry.shared.anyMayFollow(procedure, kind: kind, queue: queue, group: group)
        guard level != nil || instruments else {
            if listens {
                procedure.recordInstrumentationLinks(kind: kind, group: group)
            }
            return
        }
        let event = makeEvent(kind, procedure, group: group, timestamp: now())
        if let level { ProcedureLog.lifecycle(event, at: level) }
        if instruments { InstrumentRegistry.shared.deliver(event, enqueuedOn: queue) }
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
