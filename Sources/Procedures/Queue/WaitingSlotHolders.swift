import Synchronization

/// How many of one scheduler's slot holders wait themselves while they hold their slots (a
/// running group waits for its children, a procedure taking back its categories for their
/// holder): only such a holder can lead a wait for a slot back to its waiter, so the wait-for
/// graph (``WaitForGraph``) searches a slot wait only while this is not zero, and then finds
/// the holders among its owner's procedures. Counting costs a group two atomic additions.
final class WaitingSlotHolders: Sendable {
    private let count = Atomic<Int>(0)

    /// True if no slot holder waits.
    var isEmpty: Bool { count.load(ordering: .relaxed) <= 0 }

    /// A slot holder began to wait (balanced by exactly one ``ended()``).
    func began() { count.add(1, ordering: .relaxed) }

    func ended() { count.subtract(1, ordering: .relaxed) }
}
