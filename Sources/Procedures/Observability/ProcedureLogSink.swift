import Foundation
import ProceduresSupport

/// Where ``ProcedureLog`` messages go. Install one with ``ProcedureLog/sink``.
///
/// `write(_:)` is called on the thread that logged, with no library lock held, possibly on
/// several threads at once. It cannot throw: a sink handles its own failures. A sink that
/// blocks holds up the procedure that logged (only that one); wrap it in a ``BufferedLogSink``
/// to keep procedures running whatever the sink does.
public protocol ProcedureLogSink: Sendable {
    /// Writes one message.
    func write(_ entry: ProcedureLog.Entry)
}

/// The default sink: one line per message on standard error.
public struct StandardErrorLogSink: ProcedureLogSink {
    /// A sink writing to standard error.
    public init() {}

    /// Writes `entry` as one line.
    public func write(_ entry: ProcedureLog.Entry) {
        FileHandle.standardError.write(Data((entry.description + "\n").utf8))
    }
}

/// A sink that hands messages to another sink on a background queue, through a bounded buffer.
///
/// The logging thread only appends to the buffer; the wrapped sink runs on a serial queue of
/// its own. When the buffer is full (the wrapped sink is slow or blocked) new messages are
/// dropped and counted in ``droppedCount``: procedures never wait for a sink.
public final class BufferedLogSink: ProcedureLogSink, @unchecked Sendable {
    // @unchecked: `buffer`, `pending`, `dropped` and `draining` are only touched under `lock`;
    // the other properties are immutable.
    private let wrapped: any ProcedureLogSink
    private let capacity: Int
    private let queue = DispatchQueue(label: "Procedures.BufferedLogSink")
    private let lock = Lock()
    private var buffer: [ProcedureLog.Entry] = []
    /// Entries accepted and not yet written (buffered, or in the batch being written).
    private var pending = 0
    private var dropped = 0
    private var draining = false

    /// Buffers up to `capacity` messages (at least 1) for `sink`.
    public init(wrapping sink: any ProcedureLogSink, capacity: Int = 10_000) {
        wrapped = sink
        self.capacity = max(1, capacity)
    }

    /// How many messages were dropped because the buffer was full.
    public var droppedCount: Int { lock.withLock { dropped } }

    /// Appends `entry` to the buffer (or drops it if full); never waits.
    public func write(_ entry: ProcedureLog.Entry) {
        let startDrain = lock.withLock { () -> Bool in
            guard pending < capacity else {
                dropped += 1
                return false
            }
            pending += 1
            buffer.append(entry)
            defer { draining = true }
            return !draining
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// Calls `completion` (on the sink's queue) once every message buffered so far was written.
    public func flush(then completion: @escaping @Sendable () -> Void) {
        queue.async {
            self.drain()
            completion()
        }
    }

    private func drain() {
        while true {
            let batch = lock.withLock { () -> [ProcedureLog.Entry] in
                defer { buffer.removeAll(keepingCapacity: true) }
                if buffer.isEmpty { draining = false }
                return buffer
            }
            if batch.isEmpty { return }
            for entry in batch {
                assertNoLibraryLockHeld("a buffered log sink's wrapped write(_:)")
                wrapped.write(entry)
                lock.withLock { pending -= 1 }
            }
        }
    }
}
