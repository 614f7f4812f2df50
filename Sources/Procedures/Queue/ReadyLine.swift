import Foundation

/// Waiting procedures: one FIFO per queue priority, highest priority first. O(1) amortised;
/// nothing is allocated for the first procedure that waits, nor for other priorities until
/// one is used (most procedures, and most groups' children, never need either).
struct ReadyLine {
    private var normal = FIFO()
    /// The other priorities' lines, made when a procedure of one of them first waits.
    private var others: OtherPriorities?
    private(set) var count = 0

    /// A reference, so that a line without other priorities carries one nil pointer.
    private final class OtherPriorities {
        var veryHigh = FIFO(), high = FIFO(), low = FIFO(), veryLow = FIFO()
    }

    mutating func append(_ procedure: Procedure, priority: Operation.QueuePriority) {
        count += 1
        if priority == .normal { return normal.append(procedure) }
        let lines = others ?? OtherPriorities()
        others = lines
        switch priority {
        case .veryHigh: lines.veryHigh.append(procedure)
        case .high: lines.high.append(procedure)
        case .low: lines.low.append(procedure)
        case .veryLow: lines.veryLow.append(procedure)
        default: normal.append(procedure)
        }
    }

    mutating func popFirst() -> Procedure? {
        guard count > 0 else { return nil }
        count -= 1
        guard let lines = others else { return normal.popFirst() }
        return lines.veryHigh.popFirst() ?? lines.high.popFirst() ?? normal.popFirst() ?? lines.low.popFirst()
            ?? lines.veryLow.popFirst()
    }

    /// A FIFO: the first procedure in a slot of its own, the rest in a ring buffer grown by
    /// doubling. O(1) at both ends.
    struct FIFO {
        /// The oldest procedure when it arrived in an empty FIFO (so one waiting procedure
        /// allocates nothing).
        private var first: Procedure?
        private var slots: [Procedure?] = []
        private var head = 0
        private var ringCount = 0

        mutating func append(_ procedure: Procedure) {
            if first == nil && ringCount == 0 { return first = procedure }
            if ringCount == slots.count { grow() }
            slots[(head + ringCount) & (slots.count - 1)] = procedure
            ringCount += 1
        }

        mutating func popFirst() -> Procedure? {
            if let procedure = first.take() { return procedure }
            guard ringCount > 0 else { return nil }
            let procedure = slots[head].take()
            head = (head + 1) & (slots.count - 1)
            ringCount -= 1
            return procedure
        }

        private mutating func grow() {
            let capacity = Swift.max(4, slots.count * 2)  // a power of two, for the masks
            var grown = [Procedure?]()
            grown.reserveCapacity(capacity)
            for offset in 0..<ringCount { grown.append(slots[(head + offset) & (slots.count - 1)]) }
            grown.append(contentsOf: repeatElement(nil, count: capacity - ringCount))
            slots = grown
            head = 0
        }
    }
}
