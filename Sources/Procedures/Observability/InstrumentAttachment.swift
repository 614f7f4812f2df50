import Foundation
import ProceduresSupport

/// One instrument and the procedures it currently follows.
final class InstrumentAttachment: @unchecked Sendable {
    // @unchecked: `tracked` is only touched under `lock`; the rest is immutable.

    /// What an instrument is attached to. Held weakly, and compared by identity (not by
    /// `ObjectIdentifier`, whose address a later object may reuse once this one is freed).
    enum Scope {
        case everything
        case queue(WeakReference<ProcedureQueue>)
        case procedure(WeakReference<Procedure>)
    }

    let instrument: any ProcedureInstrument
    let scope: Scope
    private let lock = Lock()
    /// Procedures followed and not finished yet (plus operations announced by a followed
    /// producer or group before they are enqueued).
    private var tracked = Set<ObjectIdentifier>()

    init(_ instrument: any ProcedureInstrument, scope: Scope) {
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
