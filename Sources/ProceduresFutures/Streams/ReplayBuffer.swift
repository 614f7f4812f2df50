/// The last `capacity` elements of a stream, for replay to late subscribers.
/// Appending is amortised O(1): dropped elements are compacted away in batches.
struct ReplayBuffer<Element> {
    let capacity: Int
    private var storage: [Element] = []
    private var head = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Appends `element`; returns the storage that compaction replaced, holding the dropped
    /// elements, for the caller to release after unlocking (releasing them may run user code).
    mutating func append(_ element: Element) -> [Element] {
        guard capacity > 0 else { return [] }
        storage.append(element)
        guard storage.count - head > capacity else { return [] }
        head += 1
        guard head >= 64, head * 2 >= storage.count else { return [] }
        let old = storage
        storage = Array(storage[head...])
        head = 0
        return old
    }

    var elements: [Element] { Array(storage[head...]) }
}
