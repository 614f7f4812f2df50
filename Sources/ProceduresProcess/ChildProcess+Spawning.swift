#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The posix_spawn set-up of a ``ChildProcess``: file actions and attributes.

extension ChildProcess {
    #if canImport(Darwin)
    typealias FileActions = posix_spawn_file_actions_t?
    typealias Attributes = posix_spawnattr_t?
    #else
    typealias FileActions = posix_spawn_file_actions_t
    typealias Attributes = posix_spawnattr_t
    #endif

    /// Builds the file actions (standard streams, working directory, no stray descriptors) and
    /// attributes (clean signal mask, default dispositions, own process group), runs `body`
    /// with them, and frees them.
    static func withSpawnSetup(
        _ launch: Launch, pipes: [(fd: Int32, write: Int32)],
        _ body: (UnsafePointer<FileActions>, UnsafePointer<Attributes>) -> Int32
    ) -> Int32 {
        var fileActions = FileActions()
        var attributes = Attributes()
        posix_spawn_file_actions_init(&fileActions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&fileActions)
            posix_spawnattr_destroy(&attributes)
        }

        switch launch.standardInput {
        case .nullDevice: posix_spawn_file_actions_addopen(&fileActions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        case .descriptor(let fd): posix_spawn_file_actions_adddup2(&fileActions, fd, STDIN_FILENO)
        }
        for (fd, output) in [(STDOUT_FILENO, launch.standardOutput), (STDERR_FILENO, launch.standardError)] {
            switch output {
            case .nullDevice: posix_spawn_file_actions_addopen(&fileActions, fd, "/dev/null", O_WRONLY, 0)
            case .inherit: break
            case .collect:
                if let pipe = pipes.first(where: { $0.fd == fd }) {
                    posix_spawn_file_actions_adddup2(&fileActions, pipe.write, fd)
                }
            }
        }
        if let directory = launch.workingDirectory {
            #if os(Linux)
            guard let addChdir = SystemCalls.addChdir else { return ENOSYS }
            let status = addChdir(&fileActions, directory)
            if status != 0 { return status }
            #elseif canImport(Darwin)
            let status = posix_spawn_file_actions_addchdir_np(&fileActions, directory)
            if status != 0 { return status }
            #endif
        }
        #if os(Linux)
        // Descriptors someone else opened without close-on-exec stay out of the child.
        if let addCloseFrom = SystemCalls.addCloseFrom { _ = addCloseFrom(&fileActions, 3) }
        #endif

        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(flags))
        return body(&fileActions, &attributes)
    }

    /// A NULL-terminated array of C strings that lives for the duration of `body`.
    static func withCStrings<R>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
