/// The callbacks a pending future runs when it completes, and the loop that runs them.
///
/// Each callback returns the callbacks its own work made ready (typically: it completed a
/// derived future and hands back that future's callbacks instead of running them). The loop in
/// ``run()`` keeps going until nothing is left, so a chain of 100,000 `map`s completes in
/// constant stack depth. One inline slot covers the usual single consumer without an array.
/// Idea from SwiftNIO's `CallbackList`.
@usableFromInline struct CallbackList {
    @usableFromInline typealias Callback = () -> CallbackList

    @usableFromInline var first: Callback?
    @usableFromInline var more: [Callback]?

    @inlinable init() {}

    @inlinable init(_ callback: @escaping Callback) {
        first = callback
    }

    @inlinable var isEmpty: Bool { first == nil }

    @inlinable mutating func append(_ callback: @escaping Callback) {
        if first == nil {
            first = callback
        } else if more == nil {
            more = [callback]
        } else {
            more!.append(callback)
        }
    }

    @inlinable func appendAll(to queue: inout [Callback]) {
        guard let first else { return }
        queue.append(first)
        if let more { queue.append(contentsOf: more) }
    }

    /// Runs every callback, and every callback they make ready, in FIFO order, iteratively.
    @inlinable func run() {
        guard var current = first else { return }
        if more == nil {
            // The common shape: each completion readies exactly one callback. No array at all.
            while true {
                let next = current()
                guard let single = next.first else { return }
                guard next.more == nil else {
                    next.runQueued(startingWith: [])
                    return
                }
                current = single
            }
        }
        runQueued(startingWith: [])
    }

    @inlinable func runQueued(startingWith initial: [Callback]) {
        var queue = initial
        appendAll(to: &queue)
        var index = 0
        while index < queue.count {
            let next = queue[index]()
            index += 1
            next.appendAll(to: &queue)
            if index > 1024, index * 2 > queue.count {
                // Drop what has run so a long burst does not keep every finished closure alive.
                queue.removeFirst(index)
                index = 0
            }
        }
    }
}
