#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ProceduresSupport

/// The few C library calls the process support needs that Swift's `Glibc` module does not
/// import (they are declared only under `_GNU_SOURCE`): looked up once, by name, at run time.
/// Each is nil where the C library lacks it, and callers fall back.
enum SystemCalls {
    #if os(Linux)
    typealias FileActions = posix_spawn_file_actions_t
    static let addChdir: (@convention(c) (UnsafeMutablePointer<FileActions>, UnsafePointer<CChar>) -> Int32)? =
        CLibrarySymbol.lookUp("posix_spawn_file_actions_addchdir_np")
    static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<FileActions>, Int32) -> Int32)? =
        CLibrarySymbol.lookUp("posix_spawn_file_actions_addclosefrom_np")
    /// `pidfd_open(pid, flags)`: a descriptor that becomes readable when the process exits.
    static let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = CLibrarySymbol.lookUp("pidfd_open")
    /// `pidfd_send_signal(pidfd, signal, info, flags)`: signals exactly the process a pidfd holds.
    static let pidfdSendSignal: (@convention(c) (Int32, Int32, UnsafeMutableRawPointer?, UInt32) -> Int32)? =
        CLibrarySymbol.lookUp("pidfd_send_signal")
    /// `prctl` is variadic, which Swift cannot call: looked up with the fixed arguments it reads.
    static let prctl: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32)? = CLibrarySymbol.lookUp("prctl")
    static let memfdCreate: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32)? = CLibrarySymbol.lookUp("memfd_create")
    static let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = CLibrarySymbol.lookUp("pipe2")

    #endif

    /// A pipe whose two ends are closed on exec (so no other child inherits them).
    static func makePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        #if os(Linux)
        if let pipe2, pipe2(&fds, O_CLOEXEC) == 0 { return (fds[0], fds[1]) }
        #endif
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// The text of an `errno` value.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
