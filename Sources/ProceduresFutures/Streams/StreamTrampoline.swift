import ProceduresSupport
/// Something with queued stream work to run: a ``FutureStream`` with deliveries to drain.
protocol StreamDrainable: AnyObject {
    /// Runs the queued work (deliveries, finishes) now.
    func drainNow()
}

/// Runs stream deliveries from a loop instead of recursively.
///
/// Why: a derived stream's subscription adds to the next stream from inside the delivery of
/// the previous one (`add` → deliver → closure → `StreamPromise.complete` → next `add` → …), and
/// `finish()` and the releases it triggers propagate the same way. Nested, a chain of 100,000
/// `map`s would overflow the stack. Like the futures' ``CallbackList`` loop: the outermost
/// call on a thread becomes the loop, and a stream that has work while this thread is already
/// inside that loop is queued (held strongly) and drained after the current work returns, in
/// FIFO order. Stack depth stays constant whatever the chain's length.
///
/// The queue is per thread (a pthread key): no lock, and never a stripe of `StripedLock`.
enum StreamTrampoline {
    final class Queue {
        var streams: [any StreamDrainable] = []
        var running = false
    }

    private static let queues = PerThread { Queue() }
    private static var current: Queue { queues.current }

    /// Drains `stream` now, or after the work this thread is already running.
    static func drain(_ stream: any StreamDrainable) {
        let queue = current
        if queue.running {
            queue.streams.append(stream)
            return
        }
        queue.running = true
        stream.drainNow()
        while !queue.streams.isEmpty {
            // One round: what the previous round queued. Its streams are released (here, one
            // level deep) when the round ends; what they queue runs in the next round.
            let batch = queue.streams
            queue.streams = []
            for stream in batch { stream.drainNow() }
        }
        if queue.streams.capacity > 1024 { queue.streams = [] }
        queue.running = false
    }
}
