import Foundation
import ProceduresSupport

/// The attached instruments, read by every event while any is attached.
final class InstrumentRegistry: @unchecked Sendable {
    // @unchecked: `attachments` is only touched under `lock`.
    static let shared = InstrumentRegistry()
    private let lock = Lock()
    private var attachments: [InstrumentAttachment] = []

    func add(_ attachment: InstrumentAttachment) {
        lock.withLock { attachments.append(attachment) }
        ProcedureInstrumentation.setFlag(ProcedureInstrumentation.instrumentsAttached, true)
    }

    func remove(_ instrument: any ProcedureInstrument) {
        let (removed, empty) = lock.withLock { () -> ([InstrumentAttachment], Bool) in
            let removed = attachments.filter { $0.instrument === instrument }
            attachments.removeAll { $0.instrument === instrument }
            return (removed, attachments.isEmpty)
        }
        _ = consume removed  // released outside the lock
        if empty { ProcedureInstrumentation.setFlag(ProcedureInstrumentation.instrumentsAttached, false) }
    }

    /// True if some attachment may follow `procedure` (see ``InstrumentAttachment/mayFollow(_:kind:queue:group:)``).
    func anyMayFollow(
        _ procedure: Procedure, kind: ProcedureLifecycleEvent.Kind, queue: ProcedureQueue?, group: GroupProcedure?
    ) -> Bool {
        let current = lock.withLock { attachments }
        return current.contains { $0.mayFollow(procedure, kind: kind, queue: queue, group: group) }
    }

    func deliver(_ event: ProcedureLifecycleEvent, enqueuedOn queue: ProcedureQueue?) {
        let current = lock.withLock { attachments }
        for attachment in current where attachment.follows(event, enqueuedOn: queue) {
            assertNoLibraryLockHeld("an instrument's record(_:)")
            attachment.instrument.record(event)
            if case .enqueued = event.kind, let group = event.procedure.asGroup {
                announceChildren(of: group, to: attachment, at: event.timestamp)
            }
        }
    }

    /// A group's children are usually enqueued on its private queue when the group is made,
    /// before anything follows the group: once it is followed, they are announced to the
    /// attachment as enqueued (at the group's enqueue time), and ready if they already are, at
    /// any depth.
    private func announceChildren(of group: GroupProcedure, to attachment: InstrumentAttachment, at timestamp: UInt64) {
        for case let child as Procedure in group.children where child.isEnqueued && !child.isFinished {
            let event = ProcedureInstrumentation.makeEvent(.enqueued, child, group: group, timestamp: timestamp)
            guard attachment.follows(event, enqueuedOn: nil) else { continue }
            assertNoLibraryLockHeld("an instrument's record(_:)")
            attachment.instrument.record(event)
            // A child without dependencies is ready at once, on the group's suspended queue.
            if child.lock.withLock({ child.state.phase >= .ready }) {
                let ready = ProcedureInstrumentation.makeEvent(.ready, child, group: nil, timestamp: timestamp)
                if attachment.follows(ready, enqueuedOn: nil) { attachment.instrument.record(ready) }
            }
            if let nested = child.asGroup { announceChildren(of: nested, to: attachment, at: timestamp) }
        }
    }
}
