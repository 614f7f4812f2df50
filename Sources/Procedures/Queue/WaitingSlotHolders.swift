import ProceduresSupport
import Synchronization

/// The procedures holding slots of one scheduler that wait themselves while they hold them
/// (a running group waits for its children, a procedure taking back its categories waits for
/// their holder): the only slot holders a wait for a slot can lead back from, so the wait-for
/// graph (``WaitForGraph``) needs no list of every running procedure. Empty for most queues,
/// which then pay one atomic load per procedure that waits for a slot.
final class WaitingSlotHolders: @unchecked Sendable {
    // @unchecked: `holders` is guarded by `lock`; `count` is atomic, read without it.
    private let lock = InlineLock()
    @exclusivity(unchecked) private var holders: [ObjectIdentifier: Procedure] = [:]
    private let count = Atomic<Int>(0)

    /// True if no slot holder waits (no lock taken).
    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    var all: [Procedure] {
        if isEmpty { return [] }
        return lock.withLock { Array(holders.values) }
    }

    func insert(_ procedure: Procedure) {
        lock.withLock {
            holders[ObjectIdentifier(procedure)] = procedure
            count.store(holders.count, ordering: .relaxed)
        }
    }

    func remove(_ procedure: Procedure) {
        lock.withLock {
            holders[ObjectIdentifier(procedure)] = nil
            count.store(holders.count, ordering: .relaxed)
        }
    }
}
