#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Procedures
import ProceduresSupport

/// A procedure that runs a program as a child process and produces its ``ProcessResult``.
///
/// ```swift
/// let list = ProcessProcedure(executable: "ls", arguments: ["-l", "/tmp"])
/// let count = ProcessProcedure(shellCommand: "ls /tmp | wc -l")
/// queue.addOperations([list, count], waitUntilFinished: false)
/// // later: list.output?.standardOutputString
/// ```
///
/// - **Launching.** A bare name (`"ls"`) is looked up in the `PATH` of the child's
///   environment; a path with a slash is used as is (relative to the working directory).
///   A missing executable, an unusable working directory or an unreadable input file fails
///   the procedure with a ``ProcessProcedureError`` and starts nothing. A procedure cancelled
///   before it executes starts no process.
/// - **Output.** Standard output and standard error are captured up to a limit (1 MiB each by
///   default; more is dropped and the result says it was truncated), or discarded, inherited,
///   or streamed as lines through ``standardOutputLines`` / ``standardErrorLines`` for
///   long-running programs.
/// - **Exit.** An exit code outside `allowedExitCodes` (default `[0]`), or death by a signal
///   the procedure did not send, fails the procedure with
///   ``ProcessProcedureError/failed(executable:result:)``, which carries the status and the
///   tail of standard error.
/// - **Cancellation.** Cancelling sends SIGTERM to the program's process group and to the
///   descendants that left it (with SIGCONT, so that a stopped program can act on it), then
///   SIGKILL after `terminationGracePeriod` seconds (on `clock`) if it is still running. The
///   procedure finishes (cancelled) once the program has exited and been reaped (no zombie) and
///   what it left has been killed: within the grace period plus about half a second, whatever
///   its descendants do.
/// - **Descendants.** When the program exits, any process it left in its group is killed, and
///   the procedure waits about half a second at most for its output pipes to end: a process
///   out of reach that still holds them does not hold the procedure (the result says the output
///   was cut short). How far beyond the process group the procedure reaches (a `setsid`
///   descendant, a daemon) depends on ``ProcessContainment``: by default, only what is still
///   below the program when it is stopped; with a subreaper, also reaped; with a cgroup per
///   program, everything it started.
/// - **Signals.** The child starts with an empty signal mask and every signal at its default
///   disposition, whatever the parent blocks or ignores (a command-line tool that handles
///   Ctrl-C with a `DispatchSource` ignores SIGINT; its children must not inherit that). Each
///   child leads its own process group, so a terminal's Ctrl-C reaches only the parent, which
///   cancels.
/// - **Suspending.** ``suspend(completion:)`` stops the program and its group (SIGSTOP) and
///   ``resume(completion:)`` continues it; cancelling a stopped program continues it too.
/// - **No blocked threads.** The exit is watched with a `pidfd` (Linux) or a process source
///   (Darwin), and the output with read sources, all on one serial queue per child.
///
/// It is also an ``Procedures/InputProcedure``: an injected `Data` becomes the program's standard input.
public final class ProcessProcedure: ResultProcedure<ProcessResult>, InputProcedure, @unchecked Sendable {
    // @unchecked: the configuration is immutable; `input` is written only before execute()
    // (by the caller or a will-execute injection, callbacks that never overlap with execute);
    // `child` is guarded by `childLock`.

    /// Where the program's standard input comes from.
    public enum StandardInput: Sendable, Hashable {
        /// `/dev/null`: the program reads end-of-file at once.
        case nullDevice
        /// These bytes, then end-of-file.
        case data(Data)
        /// The contents of this file.
        case file(URL)
    }

    /// What happens to one of the program's output streams.
    public enum OutputDestination: Sendable, Hashable {
        /// Kept in the ``ProcessResult``, up to `limit` bytes; more is dropped and flagged.
        case capture(limit: Int = ProcessProcedure.defaultCaptureLimit)
        /// Thrown away (`/dev/null`).
        case discard
        /// Written wherever the parent's stream goes.
        case inherit
        /// Delivered line by line (without the newline) through ``standardOutputLines`` or
        /// ``standardErrorLines`` as the program writes them, and byte for byte through
        /// ``standardOutputLineData`` or ``standardErrorLineData``; not kept in the result.
        case lines
    }

    /// The default capture limit per stream: 1 MiB.
    public static let defaultCaptureLimit = 1 << 20

    /// How many past lines the line streams keep for subscribers that arrive late.
    public static let lineReplayCapacity = 1_000

    /// The executable: a path, or a bare name looked up in `PATH`.
    public let executable: String
    /// The arguments (not including the program's name).
    public let arguments: [String]
    /// The child's whole environment, or nil to pass the parent's.
    public let environment: [String: String]?
    /// The directory the program starts in, or nil for the parent's.
    public let workingDirectory: URL?
    /// Where standard input comes from (an injected ``input`` takes precedence).
    public let standardInput: StandardInput
    /// What happens to standard output.
    public let standardOutput: OutputDestination
    /// What happens to standard error.
    public let standardError: OutputDestination
    /// The exit codes that count as success.
    public let allowedExitCodes: Set<Int32>
    /// Seconds between SIGTERM and SIGKILL when the procedure is cancelled.
    public let terminationGracePeriod: TimeInterval
    /// The clock the grace period is measured on.
    public let clock: any ProcedureClock

    /// Bytes for standard input, set directly or injected from another procedure's output;
    /// when set, it replaces ``standardInput``.
    public var input: Data?

    /// Standard output's lines when it is streamed (``OutputDestination/lines``); the stream
    /// finishes when the program closes its output. Empty and finished otherwise.
    public let standardOutputLines: FutureStream<String>
    /// Standard error's lines when it is streamed; as ``standardOutputLines``.
    public let standardErrorLines: FutureStream<String>
    /// Standard output's lines when it is streamed, as the program wrote them: every byte,
    /// whether UTF-8 or not, each line with its newline (a last line the program did not end
    /// has none), so that they join up to exactly what it printed. Finishes as
    /// ``standardOutputLines`` does.
    public let standardOutputLineData: FutureStream<Data>
    /// Standard error's lines, byte for byte, when it is streamed; as ``standardOutputLineData``.
    public let standardErrorLineData: FutureStream<Data>

    private let outputLines: StreamPromise<String>
    private let errorLines: StreamPromise<String>
    private let outputLineData: StreamPromise<Data>
    private let errorLineData: StreamPromise<Data>
    private let childLock = InlineLock()
    private var child: ChildProcess?

    /// Runs `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: a path, or a bare name looked up in the `PATH` of `environment` (or of
    ///     this process).
    ///   - arguments: the arguments, not including the program's name; passed as they are,
    ///     with no shell in between.
    ///   - environment: the child's whole environment; nil passes this process's.
    ///   - workingDirectory: the directory the program starts in; nil for this process's.
    ///   - standardInput: where standard input comes from (an injected ``input`` replaces it).
    ///   - standardOutput: what happens to standard output: captured (the default), discarded,
    ///     inherited, or streamed as lines.
    ///   - standardError: the same, for standard error.
    ///   - allowedExitCodes: exit codes that count as success; any other fails the procedure.
    ///   - terminationGracePeriod: seconds a cancelled program has between SIGTERM and SIGKILL
    ///     (zero, negative or NaN: SIGKILL at once).
    ///   - clock: what the grace period is measured on (a `ManualClock` in tests).
    public init(
        executable: String, arguments: [String] = [], environment: [String: String]? = nil,
        workingDirectory: URL? = nil, standardInput: StandardInput = .nullDevice,
        standardOutput: OutputDestination = .capture(), standardError: OutputDestination = .capture(),
        allowedExitCodes: Set<Int32> = [0], terminationGracePeriod: TimeInterval = 5,
        clock: any ProcedureClock = SystemClock.shared
    ) {
        self.clock = clock
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.allowedExitCodes = allowedExitCodes
        self.terminationGracePeriod = terminationGracePeriod
        outputLines = StreamPromise(capacity: Self.lineReplayCapacity)
        errorLines = StreamPromise(capacity: Self.lineReplayCapacity)
        standardOutputLines = outputLines.stream
        standardErrorLines = errorLines.stream
        outputLineData = StreamPromise(capacity: Self.lineReplayCapacity)
        errorLineData = StreamPromise(capacity: Self.lineReplayCapacity)
        standardOutputLineData = outputLineData.stream
        standardErrorLineData = errorLineData.stream
        super.init()
        name = "Process(\(([executable] + arguments).joined(separator: " ")))"
        if standardOutput != .lines {
            outputLines.finish()
            outputLineData.finish()
        }
        if standardError != .lines {
            errorLines.finish()
            errorLineData.finish()
        }
    }

    /// Runs `command` with `/bin/sh -c`: pipes, redirections and globs work, and so does
    /// quoting trouble — prefer ``init(executable:arguments:environment:workingDirectory:standardInput:standardOutput:standardError:allowedExitCodes:terminationGracePeriod:clock:)``
    /// when the arguments come from outside.
    public convenience init(
        shellCommand command: String, environment: [String: String]? = nil, workingDirectory: URL? = nil,
        standardInput: StandardInput = .nullDevice, standardOutput: OutputDestination = .capture(),
        standardError: OutputDestination = .capture(), allowedExitCodes: Set<Int32> = [0],
        terminationGracePeriod: TimeInterval = 5, clock: any ProcedureClock = SystemClock.shared
    ) {
        self.init(
            executable: "/bin/sh", arguments: ["-c", command], environment: environment,
            workingDirectory: workingDirectory, standardInput: standardInput, standardOutput: standardOutput,
            standardError: standardError, allowedExitCodes: allowedExitCodes,
            terminationGracePeriod: terminationGracePeriod, clock: clock)
        name = "Process(sh -c \(command))"
    }

    /// The child's process id while it runs (and after); nil before it started or if it never did.
    public var processIdentifier: Int32? { childLock.withLock { child?.pid } }

    // MARK: - Running

    /// Starts the program, or fails at once if it cannot be started.
    public override func execute() {
        guard !isCancelled else {
            finishAutomatically()
            return
        }
        let outputCollector = collector(for: standardOutput, lines: outputLines, bytes: outputLineData)
        let errorCollector = collector(for: standardError, lines: errorLines, bytes: errorLineData)
        do {
            let launch = try makeLaunch(output: outputCollector, error: errorCollector)
            defer { if case .descriptor(let fd) = launch.standardInput { close(fd) } }
            let started: ChildProcess
            do {
                started = try ChildProcess.spawn(launch, clock: clock) { [self] status in
                    childExited(status, output: outputCollector, error: errorCollector)
                }
            } catch {
                throw describeSpawnFailure(error.code, path: launch.path)
            }
            childLock.withLock { child = started }
            started.startWatching()
        } catch {
            finish(withError: error)
        }
    }

    /// Stops the program: SIGTERM, then SIGKILL after the grace period, to its process group
    /// and the descendants ``ProcessContainment`` reaches. The procedure finishes once the
    /// program has exited and what it left has been killed.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        super.procedureDidCancel(withErrors: errors)
        childLock.withLock { child }?.terminate(gracePeriod: terminationGracePeriod)
    }

    /// Pauses the running program: SIGSTOP to its process group, so it and what it started
    /// stop where they are. The procedure keeps executing (a timeout still runs); cancelling it
    /// continues the program so that it can act on SIGTERM. ProcedureKit's `suspend(completion:)`.
    ///
    /// - Parameter completion: called once, on another thread, with true if the program was
    ///   stopped; false if it has not started, has exited, or the procedure was cancelled.
    public func suspend(completion: @escaping @Sendable (Bool) -> Void = { _ in }) {
        guard !isCancelled, let child = childLock.withLock({ child }) else {
            return DispatchQueue.global().async { completion(false) }
        }
        child.sendJobControl(SIGSTOP, completion: completion)
    }

    /// Continues a program stopped by ``suspend(completion:)`` (or by anyone's SIGSTOP): SIGCONT
    /// to its process group. ProcedureKit's `resume(completion:)`.
    ///
    /// - Parameter completion: called once, on another thread, with true if the signal was
    ///   sent; false if the program has not started or has exited.
    public func resume(completion: @escaping @Sendable (Bool) -> Void = { _ in }) {
        guard let child = childLock.withLock({ child }) else {
            return DispatchQueue.global().async { completion(false) }
        }
        child.sendJobControl(SIGCONT, completion: completion)
    }

    /// Ends the line streams whatever happened (a procedure cancelled before it started never
    /// ran a program that could end them). Overrides must call `super`.
    public override func procedureDidFinish(withErrors errors: [any Error]) {
        super.procedureDidFinish(withErrors: errors)
        outputLines.finish()
        errorLines.finish()
        outputLineData.finish()
        errorLineData.finish()
    }

    private func childExited(_ status: ProcessStatus?, output: ProcessOutputCollector?, error: ProcessOutputCollector?) {
        guard let status else {
            if isCancelled { return finishAutomatically() }
            return finish(withError: ProcessProcedureError.statusUnavailable(executable))
        }
        let result = ProcessResult(
            status: status,
            standardOutput: output?.captured ?? Data(),
            standardError: error?.captured ?? Data(),
            standardOutputWasTruncated: output?.truncated ?? false,
            standardErrorWasTruncated: error?.truncated ?? false,
            standardErrorTail: error?.tailText ?? "",
            standardOutputWasCutShort: output?.cutShort ?? false,
            standardErrorWasCutShort: error?.cutShort ?? false)
        if isCancelled {
            finishAutomatically()  // carries the cancel errors; the output is not kept
        } else if case .exited(let code) = status, allowedExitCodes.contains(code) {
            finish(withOutput: result)
        } else {
            finish(withError: ProcessProcedureError.failed(executable: executable, result: result))
        }
    }

    private func collector(
        for destination: OutputDestination, lines: StreamPromise<String>, bytes: StreamPromise<Data>
    ) -> ProcessOutputCollector? {
        switch destination {
        case .capture(let limit): return ProcessOutputCollector(mode: .capture(limit: max(0, limit)))
        case .lines: return ProcessOutputCollector(mode: .lines(lines, bytes: bytes))
        case .discard, .inherit: return nil
        }
    }

    private func childOutput(_ destination: OutputDestination, _ collector: ProcessOutputCollector?) -> ChildProcess.Output {
        switch destination {
        case .discard: return .nullDevice
        case .inherit: return .inherit
        case .capture, .lines: return collector.map { .collect($0) } ?? .nullDevice
        }
    }

    // MARK: - Checking before launching

    private func makeLaunch(
        output: ProcessOutputCollector?, error: ProcessOutputCollector?
    ) throws(ProcessProcedureError) -> ChildProcess.Launch {
        let directory = workingDirectory?.path
        let path = try Self.locateExecutable(executable, environment: environment, workingDirectory: workingDirectory)
        let stdin = try makeStandardInput()
        return ChildProcess.Launch(
            path: path,
            arguments: [executable] + arguments,
            environment: environment.map { $0.map { "\($0.key)=\($0.value)" }.sorted() },
            workingDirectory: directory,
            standardInput: stdin,
            standardOutput: childOutput(standardOutput, output),
            standardError: childOutput(standardError, error))
    }

    static func checkWorkingDirectory(_ path: String) throws(ProcessProcedureError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .workingDirectoryUnusable(path, reason: "no such directory")
        }
        guard isDirectory.boolValue else { throw .workingDirectoryUnusable(path, reason: "not a directory") }
        guard access(path, X_OK) == 0 else {
            throw .workingDirectoryUnusable(path, reason: SystemCalls.describe(errno))
        }
    }

    /// The path to spawn: a path with a slash as given, a bare name found in `PATH`.
    static func resolve(
        _ executable: String, environment: [String: String]?, workingDirectory: String?
    ) throws(ProcessProcedureError) -> String {
        guard !executable.isEmpty else { throw .executableNotFound(executable, searched: []) }
        if executable.contains("/") {
            let located = executable.hasPrefix("/") || workingDirectory == nil
                ? executable : workingDirectory! + "/" + executable
            guard access(located, F_OK) == 0 else { throw .executableNotFound(executable, searched: []) }
            return executable
        }
        let searchPath = (environment ?? ProcessInfo.processInfo.environment)["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = searchPath.split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "." : String($0) }
        for directory in directories {
            let candidate = directory + "/" + executable
            var isDirectory: ObjCBool = false
            if access(candidate, X_OK) == 0,
                FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
        }
        throw .executableNotFound(executable, searched: directories)
    }

    private func makeStandardInput() throws(ProcessProcedureError) -> ChildProcess.Input {
        if let input { return try Self.descriptor(holding: input) }
        switch standardInput {
        case .nullDevice:
            return .nullDevice
        case .data(let data):
            return try Self.descriptor(holding: data)
        case .file(let url):
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .standardInputUnreadable(url.path, reason: SystemCalls.describe(errno)) }
            return .descriptor(fd)
        }
    }

    /// A read descriptor positioned at the start of `data`: an anonymous in-memory file, so
    /// no thread has to feed a pipe and an early exit of the child cannot raise SIGPIPE here.
    private static func descriptor(holding data: Data) throws(ProcessProcedureError) -> ChildProcess.Input {
        guard !data.isEmpty else { return .nullDevice }
        var fd: Int32 = -1
        #if os(Linux)
        if let memfdCreate = SystemCalls.memfdCreate { fd = memfdCreate("ProcessProcedure.stdin", 1 /* MFD_CLOEXEC */) }
        #endif
        if fd < 0 {
            var template = Array((NSTemporaryDirectory() + "/ProcessProcedure.XXXXXX").utf8CString)
            fd = mkstemp(&template)
            if fd >= 0 {
                unlink(template)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        guard fd >= 0 else { throw .launchFailed("standard input", errno: errno, reason: SystemCalls.describe(errno)) }
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
        guard written, lseek(fd, 0, SEEK_SET) == 0 else {
            let code = errno
            close(fd)
            throw .launchFailed("standard input", errno: code, reason: SystemCalls.describe(code))
        }
        return .descriptor(fd)
    }

    private func describeSpawnFailure(_ code: Int32, path: String) -> ProcessProcedureError {
        switch code {
        case ENOENT: return .executableNotFound(path, searched: [])
        case EACCES, ENOEXEC, EISDIR, EPERM: return .notExecutable(path, reason: SystemCalls.describe(code))
        case ENOSYS where workingDirectory != nil:
            return .workingDirectoryUnusable(
                workingDirectory!.path, reason: "this C library cannot change directory in posix_spawn")
        default: return .launchFailed(executable, errno: code, reason: SystemCalls.describe(code))
        }
    }
}
