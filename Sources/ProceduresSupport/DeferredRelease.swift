/// Releases objects from a loop instead of from inside the deinit that dropped them.
///
/// Why: a pending chain is held from its tail (each derived future holds the one it waits on).
/// Releasing the tail of a 100,000-stage chain would otherwise run 100,000 nested deinits and
/// overflow the stack. A deinit that would drop a reference that may be the last one hands it
/// here instead: if this thread is already draining (we are inside such a deinit), the object
/// is queued and the outer loop releases it after the current deinit has returned; otherwise
/// this call becomes that loop. Stack depth stays constant whatever the chain's length.
///
/// The queue is per thread (a pthread key), so no lock is involved and draining never takes a
/// stripe of `StripedLock`. Only the rare paths use it: a future released while pending, and
/// the stand-in future of one (see ``ConsumerAnchor``).
@usableFromInline package enum DeferredRelease {
    private struct State {
        var objects: [AnyObject] = []
        var draining = false
    }

    private final class Queue {
        // Unchecked: one per thread, touched only by its thread.
        @exclusivity(unchecked) var state = State()
    }

    private static let queues = PerThread { Queue() }
    private static var current: Queue { queues.current }

    /// Takes the references out of `objects` (leaving it empty) and releases them, later if
    /// this thread is already releasing. The caller must hold no other reference to them.
    @usableFromInline package static func release(_ objects: inout [AnyObject]) {
        guard !objects.isEmpty else { return }
        let queue = current
        queue.state.objects.append(contentsOf: objects)
        objects = []
        drain(queue)
    }

    /// Same for a single reference; `object` is `nil` afterwards.
    @usableFromInline package static func release(_ object: inout AnyObject?) {
        guard object != nil else { return }
        let queue = current
        queue.state.objects.append(object!)
        object = nil
        drain(queue)
    }

    private static func drain(_ queue: Queue) {
        guard !queue.state.draining else { return }
        queue.state.draining = true
        while !queue.state.objects.isEmpty {
            // The popped reference dies at the end of this statement: any deinit it triggers
            // runs here, one level deep, and queues what it drops in turn.
            _ = queue.state.objects.removeLast()
        }
        // Do not keep a long chain's worth of capacity for the life of the thread.
        if queue.state.objects.capacity > 1024 { queue.state.objects = [] }
        queue.state.draining = false
    }
}
