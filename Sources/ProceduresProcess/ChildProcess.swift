#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Procedures

/// One running child process: spawned with `posix_spawn`, watched without blocking a thread,
/// reaped exactly once, and stopped with SIGTERM then SIGKILL on request.
///
/// **Why not Foundation's `Process`.** corelibs' `Process` spawns with only
/// `POSIX_SPAWN_SETPGROUP`: the child inherits the spawning thread's signal mask and every
/// signal the parent ignores (an ignored disposition survives `exec`). A command-line tool that
/// handles Ctrl-C through a `DispatchSource` must ignore (or block) SIGINT, and its children
/// then shrug off SIGINT — and, with a blocked mask, SIGTERM — so "terminate" did nothing.
/// Spawning ourselves lets us set `POSIX_SPAWN_SETSIGMASK` (empty mask) and
/// `POSIX_SPAWN_SETSIGDEF` (every signal back to its default). It also lets us watch the exit
/// with a `pidfd` (or a process source on Darwin) instead of a helper thread per child.
///
/// **Process group.** The child leads a process group of its own (as with `Process`), so a
/// terminal's Ctrl-C reaches only the parent, which decides (typically by cancelling). Signals
/// go to the whole group, so a shell's own children stop with it. When the leader exits, what
/// it left in its group is killed before the leader is reaped (the unreaped leader keeps the
/// group's id from being reused meanwhile).
///
/// **Descendants.** What left the group (`setsid`) is reached through a ``ProgramContainment``
/// (its cgroup, or walks of its process tree, see ``ProcessContainment``): signalled with the
/// group, killed when the leader exits, and, once they have exited, reaped if they came back to
/// this process. Completion waits for them, and for the output pipes to reach their end, for
/// ``lingerLimit`` at most after the leader was reaped: then what is still open is read one
/// last time and cut short, so that a descendant out of reach that holds a pipe cannot hold
/// the procedure.
///
/// **Threading.** Everything after the spawn happens on one serial queue per child: output
/// reads, the exit, the timers. `completion` runs there once.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: `pid` and `queue` are immutable; every other member is touched only on
    // `queue` (after `spawn` returns; before that, only by the spawning thread).

    enum Input {
        case nullDevice
        /// A descriptor the caller owns (closed by the caller after the spawn).
        case descriptor(Int32)
    }

    enum Output {
        case nullDevice
        case inherit
        case collect(ProcessOutputCollector)
    }

    struct Launch {
        var path: String
        /// argv, including argv[0].
        var arguments: [String]
        /// "NAME=value" entries, or nil to pass the parent's environment.
        var environment: [String]?
        var workingDirectory: String?
        var standardInput: Input
        var standardOutput: Output
        var standardError: Output
    }

    /// What went wrong in `posix_spawn` (an errno value), before any child ran.
    struct SpawnError: Error {
        let code: Int32
    }

    /// How long, after the leader has been reaped, completion waits for its killed descendants
    /// to exit and for the output pipes to reach their end (on the procedure's clock).
    static let lingerLimit: TimeInterval = 0.5

    let pid: pid_t
    private let queue: DispatchQueue
    private let clock: any ProcedureClock
    private var completion: ((ProcessStatus?) -> Void)?
    private var exitWatcher: DescriptorWatch?
    #if canImport(Darwin)
    private var exitSource: (any DispatchSourceProcess)?
    #endif
    private var readers: [Int32: DescriptorWatch] = [:]
    private var openOutputs = 0
    private var readEnds: [Int32] = []
    private var collectors: [Int32: ProcessOutputCollector] = [:]
    private enum Exit {
        case known(ProcessStatus)
        /// Reaped by the system before we could read its status.
        case unknown
    }
    private var status: Exit?
    private var terminationRequested = false
    private var graceTimer: (any Cancelable)?
    private var containment: ProgramContainment!
    /// Whether the descendants killed when the leader exited have exited too (or stopped
    /// being waited for).
    private var descendantsSettled = false
    private var lingerTimer: (any Cancelable)?
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)

    private init(pid: pid_t, queue: DispatchQueue, clock: any ProcedureClock) {
        self.pid = pid
        self.queue = queue
        self.clock = clock
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Starts the program; nothing is watched until ``startWatching()``. `completion` runs on
    /// the child's queue once it has exited, been reaped, its descendants stopped and its
    /// collected outputs ended (or cut short), with its status (nil if the system reaped it
    /// first and the status is lost). `clock` measures the grace period and ``lingerLimit``.
    static func spawn(
        _ launch: Launch, clock: any ProcedureClock, completion: @escaping (ProcessStatus?) -> Void
    ) throws(SpawnError) -> ChildProcess {
        var pipes: [(fd: Int32, read: Int32, write: Int32, collector: ProcessOutputCollector)] = []
        func closePipes() {
            for pipe in pipes {
                close(pipe.read)
                close(pipe.write)
            }
        }
        for (fd, output) in [(STDOUT_FILENO, launch.standardOutput), (STDERR_FILENO, launch.standardError)] {
            guard case .collect(let collector) = output else { continue }
            guard let pipe = SystemCalls.makePipe() else {
                let code = errno
                closePipes()
                throw SpawnError(code: code)
            }
            pipes.append((fd, pipe.read, pipe.write, collector))
        }

        var pid = pid_t()
        var result: Int32 = 0
        let containment = ProgramContainment.prepare()
        _ = ProcessContainment.registering {
            result = withSpawnSetup(launch, pipes: pipes.map { ($0.fd, $0.write) }) { fileActions, attributes in
                withCStrings(launch.arguments) { argv in
                    if let environment = launch.environment {
                        return withCStrings(environment) { envp in
                            posix_spawn(&pid, launch.path, fileActions, attributes, argv, envp)
                        }
                    }
                    return posix_spawn(&pid, launch.path, fileActions, attributes, argv, environ)
                }
            }
            return result == 0 ? pid : nil
        }
        guard result == 0 else {
            closePipes()
            ProgramContainment.discard(containment)
            throw SpawnError(code: result)
        }
        let contained = ProgramContainment.contain(pid, prepared: containment)

        let child = ChildProcess(pid: pid, queue: DispatchQueue(label: "Procedures.ChildProcess.\(pid)"), clock: clock)
        child.containment = contained
        child.completion = completion
        for pipe in pipes {
            close(pipe.write)  // the child has its copy; EOF comes when every writer is gone
            child.collectors[pipe.read] = pipe.collector
        }
        child.readEnds = pipes.map(\.read)
        return child
    }

    /// Starts watching the output and the exit; call it once, after storing the child where
    /// `completion` (or anyone reacting to the output) will look for it.
    func startWatching() {
        let readEnds = self.readEnds
        queue.async { [self] in watch(readEnds: readEnds) }
    }

    // MARK: - Watching

    private func watch(readEnds: [Int32]) {
        openOutputs = readEnds.count
        for fd in readEnds {
            SystemCalls.setNonBlocking(fd)
            let watch = DescriptorWatch(fd: fd, queue: queue) { [self] in drain(fd) }
            readers[fd] = watch
        }
        watchExit()
    }

    private func drain(_ fd: Int32) {
        guard let collector = collectors[fd], let watch = readers[fd] else { return }
        while true {
            let count = read(fd, readBuffer.baseAddress, readBuffer.count)
            if count > 0 {
                collector.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                watch.rearm()
                return
            }
            // End of file (or an error that ends the stream just the same).
            endOutput(fd, cutShort: false)
            completeIfDone()
            return
        }
    }

    private func endOutput(_ fd: Int32, cutShort: Bool) {
        guard let collector = collectors[fd] else { return }
        collectors[fd] = nil
        readers[fd]?.cancel()
        readers[fd] = nil
        collector.close(cutShort: cutShort)
        openOutputs -= 1
    }

    private func watchExit() {
        #if os(Linux)
        if let pidfdOpen = SystemCalls.pidfdOpen {
            let pidfd = pidfdOpen(pid, 0)
            if pidfd >= 0 {
                exitWatcher = DescriptorWatch(fd: pidfd, queue: queue) { [self] in exitObserved() }
                return
            }
            if errno == ESRCH {
                // Gone already: the system reaped it (SIGCHLD ignored), so nothing will tell.
                exitObserved()
                return
            }
        }
        pollForExit(after: .milliseconds(1))
        #elseif canImport(Darwin)
        let source = DispatchSource.makeProcessSource(identifier: pid, eventMask: .exit, queue: queue)
        source.setEventHandler { [self] in exitObserved() }
        exitSource = source
        source.resume()
        #endif
    }

    #if os(Linux)
    /// Without pidfds (kernels before 5.3, C libraries before glibc 2.36): a timer that asks,
    /// backing off to 50 ms. Still no thread is blocked.
    private func pollForExit(after interval: DispatchTimeInterval) {
        queue.asyncAfter(deadline: .now() + interval) { [self] in
            var info = siginfo_t()
            let answered = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if (answered == 0 && info._sifields._sigchld.si_pid == pid) || (answered < 0 && errno == ECHILD) {
                exitObserved()  // exited (a zombie), or already reaped by the system
            } else {
                let next: DispatchTimeInterval
                switch interval {
                case .milliseconds(let ms): next = .milliseconds(min(ms * 2, 50))
                default: next = .milliseconds(50)
                }
                pollForExit(after: next)
            }
        }
    }
    #endif

    /// True while the child is a zombie we have not reaped: its pid, and so its process-group
    /// id, cannot belong to anyone else yet. (False if the system reaped it already, which it
    /// does when the process ignores SIGCHLD: then the id may be reused, and is not signalled.)
    private func isUnreapedChild() -> Bool {
        #if os(Linux)
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
        #else
        return true
        #endif
    }

    /// The child has exited and is not yet reaped (so its pid and process-group id are still
    /// ours): sweep its group, then reap it.
    private func exitObserved() {
        guard status == nil else { return }
        exitWatcher?.cancel()
        exitWatcher = nil
        #if canImport(Darwin)
        exitSource?.cancel()
        exitSource = nil
        #endif
        if isUnreapedChild() {
            _ = kill(-pid, SIGKILL)
            containment.killAll(leaderHasExited: true)
        }
        var raw: Int32 = 0
        var reaped: pid_t
        repeat {
            reaped = waitpid(pid, &raw, WNOHANG)
        } while reaped < 0 && errno == EINTR
        containment.leaderIsReaped = true
        ProcessContainment.forget(pid)
        // reaped != pid only if the system reaped it for us (SIGCHLD ignored process-wide):
        // then its status is lost.
        status = reaped == pid ? .known(ProcessStatus(waitStatus: raw)) : .unknown
        graceTimer?.cancel()
        graceTimer = nil
        settleDescendants(pause: 0.001)
        // Its own ends of the pipes closed before it exited: usually they are at their end now.
        for fd in Array(collectors.keys) { drain(fd) }
        if completion != nil {
            lingerTimer = clock.schedule(after: Self.lingerLimit) { [self] in queue.async { [self] in lingerEnded() } }
        }
        completeIfDone()
    }

    /// Watches, on a timer that backs off to 20 ms, until the killed descendants have exited.
    private func settleDescendants(pause: TimeInterval) {
        guard completion != nil, !descendantsSettled else { return }
        if containment.settle() {
            descendantsSettled = true
            completeIfDone()
        } else {
            queue.asyncAfter(deadline: .now() + pause) { [self] in settleDescendants(pause: min(pause * 2, 0.02)) }
        }
    }

    /// ``lingerLimit`` has passed since the leader was reaped: what the outputs still hold is
    /// read, they are cut short, and descendants that have not exited are no longer waited for.
    private func lingerEnded() {
        guard completion != nil else { return }
        for fd in Array(collectors.keys) {
            if collectors[fd] != nil { drain(fd) }  // what is buffered, up to EAGAIN (or EOF)
            endOutput(fd, cutShort: true)
        }
        descendantsSettled = true
        completeIfDone()
    }

    private func completeIfDone() {
        guard let status, openOutputs == 0, descendantsSettled, let completion else { return }
        self.completion = nil
        lingerTimer?.cancel()
        lingerTimer = nil
        readers.removeAll()
        containment.release()
        if case .known(let known) = status { completion(known) } else { completion(nil) }
    }

    // MARK: - Stopping

    /// Sends SIGTERM (and SIGCONT, for a stopped child) to the child's process group and the
    /// descendants its containment reaches, then SIGKILL once `gracePeriod` has passed on the
    /// clock if it is still running. Safe to call at any time, from any thread, more than once.
    func terminate(gracePeriod: TimeInterval) {
        queue.async { [self] in
            guard status == nil, !terminationRequested else { return }
            terminationRequested = true
            // Descendants outside the group first, while the tree below the leader is whole,
            // and with the group stopped, so that none forks one the walk would not see.
            signalGroup(SIGSTOP)
            containment.signalOutsideGroup(SIGTERM)
            signalGroup(SIGTERM)
            // A stopped program (SIGSTOP, Ctrl-Z, a debugger, `ProcessProcedure.suspend`) keeps
            // SIGTERM pending until it runs again: continue it so that it can act on it.
            signalGroup(SIGCONT)
            containment.signalOutsideGroup(SIGCONT)
            guard gracePeriod > 0 else {  // also false for NaN
                killEverything()
                return
            }
            graceTimer = clock.schedule(after: gracePeriod) { [self] in
                queue.async { [self] in
                    if status == nil { killEverything() }
                }
            }
        }
    }

    /// SIGKILL to the group and every descendant known. Only before the leader is reaped.
    private func killEverything() {
        containment.killAll(leaderHasExited: false)
        signalGroup(SIGKILL)
    }

    /// Sends `signal` (SIGSTOP or SIGCONT) to the child's process group, unless it has exited
    /// (or, for SIGSTOP, was asked to terminate: a cancelled program must not be frozen).
    /// `completion` runs on the child's queue with whether the signal was sent.
    func sendJobControl(_ signal: Int32, completion: @escaping @Sendable (Bool) -> Void) {
        queue.async { [self] in
            let sent = status == nil && !(signal == SIGSTOP && terminationRequested)
            if sent { signalGroup(signal) }
            completion(sent)
        }
    }

    /// Only called before the child is reaped, while its pid cannot belong to anyone else.
    private func signalGroup(_ signal: Int32) {
        // The child may have moved itself to another group (setsid): then signal it directly too.
        if getpgid(pid) != pid { _ = kill(pid, signal) }
        _ = kill(-pid, signal)
    }
}
