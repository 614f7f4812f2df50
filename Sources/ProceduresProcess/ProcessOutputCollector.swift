import Foundation
import Procedures

/// Gathers what one of a child's output pipes delivers: bounded capture (with a rolling tail),
/// or lines fed to a stream. Only touched on the child's serial queue.
final class ProcessOutputCollector: @unchecked Sendable {
    // @unchecked: every member is read and written on the owning ChildProcess's serial queue.
    enum Mode {
        case capture(limit: Int)
        /// Each line decoded, and each line's bytes with their newline.
        case lines(StreamPromise<String>, bytes: StreamPromise<Data>)
    }

    /// How much of the end of the stream is kept for error messages, whatever the limit.
    static let tailCapacity = 4096

    private let mode: Mode
    private(set) var captured = Data()
    private(set) var truncated = false
    /// The stream was closed before its end (a process out of reach still held it).
    private(set) var cutShort = false
    private var tail = Data()
    private var partialLine = Data()

    init(mode: Mode) {
        self.mode = mode
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        switch mode {
        case .capture(let limit):
            let room = max(0, limit - captured.count)
            if bytes.count <= room {
                captured.append(contentsOf: bytes)
            } else {
                captured.append(contentsOf: bytes.prefix(room))
                truncated = true
            }
            tail.append(contentsOf: bytes.suffix(Self.tailCapacity))
            if tail.count > 2 * Self.tailCapacity { tail = tail.suffix(Self.tailCapacity) }
        case .lines(let promise, let exact):
            var start = bytes.startIndex
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                partialLine.append(contentsOf: bytes[start..<newline])
                promise.succeed(String(decoding: partialLine, as: UTF8.self))
                partialLine.append(UInt8(ascii: "\n"))
                exact.succeed(partialLine)
                partialLine.removeAll(keepingCapacity: true)
                start = newline + 1
            }
            partialLine.append(contentsOf: bytes[start...])
        }
    }

    /// The stream reached its end, or was `cutShort` before it: a last line without a newline
    /// is delivered, and the lines stream finishes.
    func close(cutShort: Bool) {
        self.cutShort = cutShort
        guard case .lines(let promise, let exact) = mode else { return }
        if !partialLine.isEmpty {
            promise.succeed(String(decoding: partialLine, as: UTF8.self))
            exact.succeed(partialLine)
            partialLine = Data()
        }
        promise.finish()
        exact.finish()
    }

    /// The last few kilobytes, decoded.
    var tailText: String { String(decoding: tail.suffix(Self.tailCapacity), as: UTF8.self) }
}
