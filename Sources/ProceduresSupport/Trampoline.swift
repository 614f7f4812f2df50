/// Runs work from a per-thread loop instead of nesting it.
///
/// Why: when a group's last child finishes, the group finishes inside the child's finish, and
/// its parent group inside that, one stack level per level of nesting: thousands of nested
/// groups would overflow a worker's stack. Work handed to ``run(_:)`` while this thread is
/// already inside ``run(_:)`` is queued and runs after the current work returns, in order, so
/// the depth stays constant. (Streams have their own loop, `StreamTrampoline`, which queues
/// streams rather than closures.)
package enum Trampoline {
    private struct State {
        var work: [() -> Void] = []
        var running = false
    }

    private final class Queue {
        // Unchecked: one per thread, touched only by its thread, so the runtime's exclusivity
        // checks (two calls per access) can never fire.
        @exclusivity(unchecked) var state = State()
    }

    private static let queues = PerThread { Queue() }
    private static var current: Queue { queues.current }

    /// Runs `work` now, or, if this thread is already running trampolined work, right after it.
    package static func run(_ work: @escaping () -> Void) {
        let queue = current
        if queue.state.running {
            queue.state.work.append(work)
            return
        }
        queue.state.running = true
        work()
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
