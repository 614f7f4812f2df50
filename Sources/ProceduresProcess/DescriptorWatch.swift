#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ProceduresSupport

/// Calls `handler` on `queue` when a descriptor becomes readable (data, end of file, or — for a
/// pidfd — the process's exit), once per ``rearm()``.
///
/// On Linux this does not use `DispatchSource.makeReadSource`: libdispatch's epoll bookkeeping
/// has a use-after-free when read sources are created and torn down at a high rate from
/// several threads (swift-corelibs-libdispatch issue 949; it crashed this package's tests in
/// `_dispatch_event_loop_drain` with a few hundred short processes). Instead one process-wide
/// thread waits in `epoll_wait` for every watched descriptor (one-shot: a descriptor is not
/// reported again until its reader drained it and re-armed it) and hands each event to the
/// watcher's queue. That thread only ever waits for the kernel; no user code runs on it.
/// On Darwin (kqueue, unaffected) a dispatch read source does the same job.
///
/// Owns the descriptor: ``cancel()`` stops watching and closes it. Use from `queue` only.
final class DescriptorWatch: @unchecked Sendable {
    // @unchecked: `cancelled` (and on Darwin `source`) are only touched on the watcher's queue;
    // `fd` and `token` are immutable.
    let fd: Int32
    private var cancelled = false
    #if os(Linux)
    private let token: UInt64
    #else
    private let source: any DispatchSourceRead
    #endif

    /// Starts watching `fd` (armed once).
    init(fd: Int32, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) {
        self.fd = fd
        #if os(Linux)
        token = EpollLoop.shared.watch(fd) { queue.async(execute: handler) }
        #else
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler(handler: handler)
        source.setCancelHandler { close(fd) }
        source.resume()
        #endif
    }

    /// Asks for the next readiness event (after the reader saw `EAGAIN`).
    func rearm() {
        guard !cancelled else { return }
        #if os(Linux)
        EpollLoop.shared.rearm(fd, token: token)
        #endif
    }

    /// Stops watching and closes the descriptor. Idempotent.
    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        #if os(Linux)
        EpollLoop.shared.stopWatching(fd, token: token)
        close(fd)
        #else
        source.cancel()
        #endif
    }
}

#if os(Linux)
/// The one thread that waits in `epoll_wait` for the descriptors of every child process (see
/// ``DescriptorWatch``). `epoll` is not in Swift's `Glibc` module, so its three calls are
/// looked up by name and `struct epoll_event` is laid out by hand (packed, 12 bytes, on
/// x86_64; 16 bytes elsewhere).
final class EpollLoop: @unchecked Sendable {
    // @unchecked: `handlers` and `nextToken` are guarded by `lock`; the rest is immutable.
    static let shared = EpollLoop()

    private typealias Create = @convention(c) (Int32) -> Int32
    private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer, Int32, Int32) -> Int32

    private static let inReady: UInt32 = 0x001  // EPOLLIN
    private static let oneShot: UInt32 = 1 << 30  // EPOLLONESHOT
    private static let add: Int32 = 1, remove: Int32 = 2, modify: Int32 = 3
    #if arch(x86_64)
    private static let eventSize = 12, dataOffset = 4
    #else
    private static let eventSize = 16, dataOffset = 8
    #endif

    private let epollFD: Int32
    private let control: Control
    private let lock = Lock()
    private var handlers: [UInt64: @Sendable () -> Void] = [:]
    private var nextToken: UInt64 = 1

    private init() {
        guard let create: Create = CLibrarySymbol.lookUp("epoll_create1"),
            let control: Control = CLibrarySymbol.lookUp("epoll_ctl"),
            let wait: Wait = CLibrarySymbol.lookUp("epoll_wait")
        else { preconditionFailure("ProcessProcedure needs epoll, which this C library does not provide") }
        epollFD = create(O_CLOEXEC)
        precondition(epollFD >= 0, "epoll_create1 failed: \(SystemCalls.describe(errno))")
        self.control = control
        let thread = Thread { [self] in run(wait: wait) }
        thread.name = "Procedures.ProcessEvents"
        thread.start()
    }

    func watch(_ fd: Int32, handler: @escaping @Sendable () -> Void) -> UInt64 {
        let token = lock.withLock {
            defer { nextToken += 1 }
            handlers[nextToken] = handler
            return nextToken
        }
        let status = configure(Self.add, fd, token: token)
        precondition(status == 0, "epoll_ctl(ADD, \(fd)) failed: \(SystemCalls.describe(errno))")
        return token
    }

    func rearm(_ fd: Int32, token: UInt64) {
        _ = configure(Self.modify, fd, token: token)
    }

    /// After this returns no event for `token` will be handed over (one already fetched finds
    /// no handler), so the caller may close `fd`.
    func stopWatching(_ fd: Int32, token: UInt64) {
        _ = configure(Self.remove, fd, token: token)
        _ = lock.withLock { handlers.removeValue(forKey: token) }
    }

    private func configure(_ operation: Int32, _ fd: Int32, token: UInt64) -> Int32 {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        return event.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: Self.inReady | Self.oneShot, toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: token, toByteOffset: Self.dataOffset, as: UInt64.self)
            return control(epollFD, operation, fd, bytes.baseAddress)
        }
    }

    private func handler(for token: UInt64) -> (@Sendable () -> Void)? {
        lock.withLock { handlers[token] }
    }

    private func run(wait: Wait) {
        let capacity = 64
        let eventSize = Self.eventSize, dataOffset = Self.dataOffset
        let events = UnsafeMutableRawPointer.allocate(byteCount: capacity * eventSize, alignment: 8)
        while true {
            let count = wait(epollFD, events, Int32(capacity), -1)
            if count < 0 { continue }  // EINTR
            for index in 0..<Int(count) {
                let token = events.loadUnaligned(fromByteOffset: index * eventSize + dataOffset, as: UInt64.self)
                handler(for: token)?()
            }
        }
    }
}
#endif
