/// The pending callbacks of a clock, earliest first: a binary min-heap whose entries know
/// their own position, so that cancelling one is O(log n) and leaves nothing behind.
///
/// It does no locking of its own: its owner (a clock) keeps it under its lock. Insertion
/// order breaks ties, so callbacks due at the same time run in the order they were scheduled.
package struct TimerHeap {
    /// One scheduled callback.
    package final class Entry: Cancelable, @unchecked Sendable {
        // @unchecked: `slot` is only touched by the owning heap, under its owner's lock;
        // `deadline`, `sequence` and the owner never change once set.
        package let deadline: Double
        let sequence: UInt64
        /// What the heap changes in an entry.
        struct Slot {
            /// Where the entry sits in the heap; -1 once it left it (ran or was cancelled).
            var index = -1
            var action: (@Sendable () -> Void)?
        }
        // Unchecked: only touched under the owner's lock, which already excludes every other access.
        @exclusivity(unchecked) var slot: Slot
        /// The system clock's entries cancel through `SystemClock.shared`, which lives as long
        /// as the process: they keep no reference to it, so the shared clock (which every
        /// timeout uses) has no weak references and its retains stay on the fast path.
        private let cancelsThroughSharedClock: Bool
        /// Any other owner, to remove the entry on `cancel()`. Weak: a clock dropped with
        /// callbacks pending must be freed, and its entries with it.
        private weak var owner: (any TimerHeapOwner)?

        init(deadline: Double, sequence: UInt64, action: @escaping @Sendable () -> Void, owner: any TimerHeapOwner) {
            self.deadline = deadline
            self.sequence = sequence
            slot = Slot(action: action)
            if owner === SystemClock.shared {
                cancelsThroughSharedClock = true
            } else {
                cancelsThroughSharedClock = false
                self.owner = owner
            }
        }

        /// Removes the callback from its clock; it will not run.
        package func cancel() {
            if cancelsThroughSharedClock { SystemClock.shared.cancel(self) } else { owner?.cancel(self) }
        }

        @inline(__always)
        func isEarlier(than other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    package init() {}

    /// How many callbacks are pending.
    package var count: Int { entries.count }

    /// The earliest pending callback.
    package var first: Entry? { entries.first }

    /// Every pending deadline, earliest first (O(n log n); for tests and diagnostics).
    package var sortedDeadlines: [Double] { entries.map(\.deadline).sorted() }

    /// Adds a callback and returns its entry. A NaN deadline counts as due at once.
    package mutating func insert(
        deadline: Double, owner: any TimerHeapOwner, action: @escaping @Sendable () -> Void
    ) -> Entry {
        let entry = Entry(
            deadline: deadline.isNaN ? -.infinity : deadline, sequence: nextSequence, action: action, owner: owner)
        nextSequence &+= 1
        entry.slot.index = entries.count
        entries.append(entry)
        siftUp(entries.count - 1)
        return entry
    }

    /// Removes `entry` if it is still pending and returns its action (to be released by the
    /// caller outside its lock); nil if it already ran or was cancelled.
    package mutating func remove(_ entry: Entry) -> (@Sendable () -> Void)? {
        let index = entry.slot.index
        guard index >= 0, index < entries.count, entries[index] === entry else { return nil }
        let last = entries.removeLast()
        if index < entries.count {
            entries[index] = last
            last.slot.index = index
            siftDown(index)
            siftUp(last.slot.index)
        }
        entry.slot.index = -1
        defer { entry.slot.action = nil }
        return entry.slot.action
    }

    /// Removes the earliest callback if it is due at `time`, and returns its deadline and
    /// action (to be run by the caller outside its lock).
    package mutating func popFirst(dueAt time: Double) -> (deadline: Double, action: @Sendable () -> Void)? {
        guard let first = entries.first, first.deadline <= time, let action = remove(first) else { return nil }
        return (first.deadline, action)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = entries[child]
        // Most often already in place (a timeout's deadline is later than those scheduled
        // before it), and its index is set: nothing to move or write.
        guard child > 0, entry.isEarlier(than: entries[(child - 1) / 2]) else { return }
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.isEarlier(than: entries[parent]) else { break }
            entries[child] = entries[parent]
            entries[child].slot.index = child
            child = parent
        }
        entries[child] = entry
        entry.slot.index = child
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = entries[parent]
        let count = entries.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, entries[child + 1].isEarlier(than: entries[child]) { child += 1 }
            guard entries[child].isEarlier(than: entry) else { break }
            entries[parent] = entries[child]
            entries[parent].slot.index = parent
            parent = child
        }
        entries[parent] = entry
        entry.slot.index = parent
    }
}

/// A clock that keeps its callbacks in a ``TimerHeap`` and removes an entry when it is
/// cancelled.
package protocol TimerHeapOwner: AnyObject, Sendable {
    /// Removes `entry` (if still pending), taking the owner's lock.
    func cancel(_ entry: TimerHeap.Entry)
}
