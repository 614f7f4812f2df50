/// The callbacks a pending future runs when it completes, and the loop that runs them.
///
/// Each callback receives the completed future (its `owner`) and returns the callbacks its own
/// work made ready (typically: it completed a derived future and hands back that future's
/// callbacks instead of running them). The loop in ``run()`` keeps going until nothing is left,
/// so a chain of 100,000 `map`s completes in constant stack depth. One inline slot covers the
/// usual single consumer without an array. Idea from SwiftNIO's `CallbackList`.
///
/// Why the owner is passed rather than captured: a consumer's callback that captured the future
/// it waits on would keep that future alive through its own callback list, so a derived future
/// whose consumers have all gone could never be released (and never withdraw its cancel vote).
/// A list handed out to run holds its owner, which keeps it alive exactly while its callbacks run.
@usableFromInline struct CallbackList {
    @usableFromInline typealias Callback = (AnyObject) -> CallbackList

    @usableFromInline var first: Callback?
    @usableFromInline var more: [Callback]?
    /// The completed future the callbacks belong to.
    @usableFromInline var owner: AnyObject?

    @inlinable init() {}

    /// The callbacks of `owner`, which has just completed, ready to run.
    @inlinable init(_ pending: PendingCallbacks, owner: AnyObject) {
        first = pending.first
        more = pending.more
        self.owner = owner
    }

    @inlinable func appendAll(to queue: inout [(Callback, AnyObject)]) {
        guard let first, let owner else { return }
        queue.append((first, owner))
        if let more {
            for callback in more { queue.append((callback, owner)) }
        }
    }

    /// Runs every callback, and every callback they make ready, in FIFO order, iteratively.
    @inlinable func run() {
        guard var current = first, var owner else { return }
        if more == nil {
            // The common shape: each completion readies exactly one callback. No array at all.
            while true {
                let next = current(owner)
                guard let single = next.first, let nextOwner = next.owner else { return }
                guard next.more == nil else {
                    next.runQueued()
                    return
                }
                current = single
                owner = nextOwner
            }
        }
        runQueued()
    }

    @inlinable func runQueued() {
        var queue: [(Callback, AnyObject)] = []
        appendAll(to: &queue)
        var index = 0
        while index < queue.count {
            let (callback, owner) = queue[index]
            let next = callback(owner)
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

/// The callbacks registered on a pending future, as it stores them: no owner (the future
/// would hold itself), one word less in every future.
@usableFromInline struct PendingCallbacks {
    @usableFromInline var first: CallbackList.Callback?
    @usableFromInline var more: [CallbackList.Callback]?

    @inlinable init() {}

    @inlinable var isEmpty: Bool { first == nil }

    @inlinable mutating func append(_ callback: @escaping CallbackList.Callback) {
        if first == nil {
            first = callback
        } else if more == nil {
            more = [callback]
        } else {
            more!.append(callback)
        }
    }
}
