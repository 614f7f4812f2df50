/// Runs work from a per-thread loop instead of nesting it.
///
/// Why: when a group's last child finishes, the group finishes inside the child's finish, and
/// its parent group inside that, one stack level per level of nesting: thousands of nested
/// groups would overflow a worker's stack. Work handed to ``run(_:_:)`` while this thread is
/// already inside ``run(_:_:)`` is queued and runs after the current work returns, in order, so
/// the depth stays constant. (Streams have their own loop, `StreamTrampoline`, which queues
/// streams rather than closures.)
package enum Trampoline {
    @usableFromInline
    struct State {
        @usableFromInline var work: [() -> Void] = []
        @usableFromInline var running = false
        @usableFromInline init() {}
    }

    @usableFromInline
    final class Queue {
        // Unchecked: one per thread, touched only by its thread, so the runtime's exclusivity
        // checks (two calls per access) can never fire.
        @exclusivity(unchecked) @usableFromInline var state = State()
        @usableFromInline init() {}
    }

    @usableFromInline static let queues = PerThread { Queue() }

    /// Runs `work(context)` now, or, if this thread is already running trampolined work, right
    /// after it. Inlined, with a `work` that captures nothing, it costs no allocation unless it
    /// is queued (a closure capturing the values would be allocated at every call).
    @inlinable
    package static func run<Context>(_ context: Context, _ work: @escaping (Context) -> Void) {
        let queue = queues.current
        if queue.state.running {
            queue.state.work.append { work(context) }
            return
        }
        queue.state.running = true
        work(context)
        drain(queue)
    }

    /// Runs what was queued while the first work ran, in order, then lets the thread run anew.
    @usableFromInline
    static func drain(_ queue: Queue) {
        var index = 0
        while index < queue.state.work.count {
            let next = queue.state.work[index]
            index += 1
            next()
        }
        queue.state.work.removeAll(keepingCapacity: queue.state.work.capacity <= 64)
        queue.state.running = false
    }
}
