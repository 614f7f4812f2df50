/// A queue's unfinished procedures, in the order they were added. Guarded by the queue's lock.
///
/// O(1) in and out, and taking one out touches no other procedure: a finished procedure leaves
/// a hole, holes at the front are skipped (procedures mostly finish in the order they were
/// added), and the list is compacted once holes outnumber members. (Filling the hole with the
/// last member instead, as a swap-remove does, wrote to that procedure while holding the
/// queue's lock: usually one just added by another thread, so a cache miss inside the queue's
/// busiest critical section.)
///
/// Each member remembers its position in `Procedure.memberIndex`, an absolute count that
/// only grows, so dropping the front never renumbers anyone; only a compaction does.
struct MemberList {
    private var slots: [Procedure?] = []
    /// The first slot that may hold a member (those before it are holes).
    private var head = 0
    /// The absolute position of `slots[0]`.
    private var base = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The members, oldest first.
    var procedures: [Procedure] { slots[head...].compactMap { $0 } }

    mutating func append(_ procedure: Procedure) {
        procedure.memberIndex = base + slots.count
        slots.append(procedure)
        count += 1
    }

    /// Takes `procedure` out and returns it, or nil if it is not a member. `trustIndex` false:
    /// its `memberIndex` may be another queue's (it was adopted elsewhere meanwhile), so the
    /// list is searched.
    mutating func remove(_ procedure: Procedure, trustIndex: Bool = true) -> Procedure? {
        var position = procedure.memberIndex - base
        if !trustIndex || !(position >= head && position < slots.count && slots[position] === procedure) {
            guard let found = slots[head...].lastIndex(where: { $0 === procedure }) else { return nil }
            position = found
        }
        let removed = slots[position].take()
        count -= 1
        dropLeadingHoles()
        return removed
    }

    private mutating func dropLeadingHoles() {
        while head < slots.count, slots[head] == nil { head += 1 }
        if head == slots.count {
            base += slots.count
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= slots.count {
            slots.removeFirst(head)  // O(what remains), at most what the front gave up
            base += head
            head = 0
        } else if slots.count - head >= 64, count * 2 < slots.count - head {
            compact()
        }
    }

    /// Closes the holes behind a member that stays at the front (a long-running procedure
    /// while many after it finish). Renumbers the members: O(members), at most once per as
    /// many removals.
    private mutating func compact() {
        var members: [Procedure?] = []
        members.reserveCapacity(count * 2)
        base += slots.count  // fresh positions: no stale index can point into the new range
        for case let procedure? in slots[head...] {
            procedure.memberIndex = base + members.count
            members.append(procedure)
        }
        slots = members
        head = 0
    }
}
