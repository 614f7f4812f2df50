/// The last `capacity` elements of a stream, for replay to late subscribers.
/// Appending is amortised O(1): dropped elements are compacted away in batches.
struct ReplayBuffer<Element> {
    let capacity: Int
    private var storage: [Element] = []
    private var head = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    mutating func append(_ element: Element) {
        guard capacity > 0 else { return }
        storage.append(element)
        if storage.count - head > capacity {
            head += 1
            if head >= 64, head * 2 >= storage.count {
                storage.removeFirst(head)
                head = 0
            }
        }
    }

    var elements: [Element] { Array(storage[head...]) }
}
