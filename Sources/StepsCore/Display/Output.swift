import Foundation
import ProceduresSupport

/// Unbuffered writes to standard output and standard error, so that a reader on a pipe sees
/// each line as it happens.
///
/// `steps` ignores SIGPIPE (``StepsCommand`` does, before anything runs), so a write to a
/// closed pipe fails with EPIPE instead of killing it and leaving its steps' processes
/// running. The first write that finds standard output closed tells the handler given to
/// ``onStandardOutputClosed(_:)`` (the run then stops as on SIGTERM); later writes to it are
/// dropped.
enum Output {
    static func write(_ text: String) {
        guard !state.isClosed else { return }
        if writeAll(Data(text.utf8), to: STDOUT_FILENO) == EPIPE { state.close() }
    }

    /// A line on standard error; nothing happens if it is closed too.
    static func error(_ text: String) {
        _ = writeAll(Data((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// `handler` is called once, on a queue of Dispatch's (never inside a write, which a
    /// display makes under its lock), when a write finds standard output closed: at once if
    /// one already has.
    static func onStandardOutputClosed(_ handler: @escaping @Sendable () -> Void) {
        state.setHandler(handler)
    }

    private static let state = ClosedState()

    /// Whether standard output was found closed, and who is told.
    private final class ClosedState: Sendable {
        private let state = LockedValue<(closed: Bool, handler: (@Sendable () -> Void)?)>((false, nil))

        var isClosed: Bool { state.withLock { $0.closed } }

        func close() {
            let handler = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.closed else { return nil }
                state.closed = true
                defer { state.handler = nil }
                return state.handler
            }
            if let handler { DispatchQueue.global().async(execute: handler) }
        }

        func setHandler(_ handler: @escaping @Sendable () -> Void) {
            let now = state.withLock { state -> Bool in
                if state.closed { return true }
                state.handler = handler
                return false
            }
            if now { DispatchQueue.global().async(execute: handler) }
        }
    }

    /// Writes every byte of `data`; returns the error that stopped it (errno), or nil.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
            guard var next = buffer.baseAddress else { return nil }
            var left = buffer.count
            while left > 0 {
                let written = systemWrite(descriptor, next, left)
                if written >= 0 {
                    next += written
                    left -= written
                    continue
                }
                switch errno {
                case EINTR: continue
                case EAGAIN:
                    // A descriptor shared with a program that made it non-blocking: wait until it takes more.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                case let code: return code
                }
            }
            return nil
        }
    }
}

/// write(2), out of the reach of ``Output/write(_:)``'s name.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
