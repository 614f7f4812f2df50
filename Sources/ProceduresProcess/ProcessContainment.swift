#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ProceduresSupport

/// How far ``ProcessProcedure`` goes to make sure that nothing a program starts outlives its
/// procedure: a process-wide choice, made once, early (a command-line tool calls
/// ``enable(controlGroups:)`` at startup; `steps` does).
///
/// Whatever the mechanism, a program's procedure finishes within its grace period plus about
/// half a second of being stopped (cancelled, timed out), and about half a second after the
/// program exits by itself: what its descendants hold open (its output pipes) does not keep it
/// waiting. What happens to those descendants depends on the mechanism:
///
/// - ``Mechanism/processGroup`` (the default; nothing process-wide): the program leads a
///   process group of its own. When it exits, what is left in its group is killed. When it is
///   stopped, its process tree is walked first, so that a descendant that left the group
///   (`setsid`) but is still below the program is sent SIGTERM with the group, and SIGKILL when
///   the grace period ends or the program exits. A descendant whose parent exited before that
///   walk (a double fork, a daemon), or that a program exiting by itself left behind outside
///   its group, goes to `init` and survives. Killed descendants are reaped by `init`.
/// - ``Mechanism/subreaper``: the same, and this process is a child subreaper
///   (`PR_SET_CHILD_SUBREAPER`, Linux 3.4), so orphans come back to it instead of `init`: those
///   the walks found, and the members of the program's group killed with it, are reaped by
///   their procedure before it finishes (no zombies, even where `init` does not reap). Orphans
///   no walk found stay alive; a tool that starts children only through procedures ends them
///   with ``endAdoptedOrphans(completion:)`` before it exits.
/// - ``Mechanism/controlGroup``: the same, and each program runs in a cgroup v2 of its own, made
///   below this process's cgroup. Every process the program starts is in it, whatever it does
///   (`setsid`, double fork, daemon), unless it has the privilege to move itself elsewhere.
///   When the program exits or its grace period ends, the whole cgroup is killed
///   (`cgroup.kill`), and the procedure finishes once the cgroup is empty, its orphans reaped.
///   Possible where this process may create cgroups and move processes into them: as root, or
///   in a cgroup delegated to it (a systemd unit with `Delegate=yes`, `systemd-run --user
///   --scope -p Delegate=yes`). One gap remains: `posix_spawn` cannot start a program in a
///   cgroup (before glibc 2.39), so the program is stopped (SIGSTOP) as soon as `posix_spawn`
///   returns, moved in with what it has started, then continued. What it detaches in between
///   (usually microseconds; more if the spawning thread is preempted on a busy machine) is not
///   in the cgroup; a subreaper still adopts it. A move costs an RCU grace period (10–25 ms
///   measured here for a program started on its own, far less for programs started back to
///   back), during which the program stays stopped: that is why cgroups are opt-in.
///
/// Being a subreaper is process-wide: orphans of *every* descendant come to this process,
/// including those of children started otherwise (Foundation's `Process`). The library reaps
/// only the orphans it can tell apart (in a procedure's cgroup, or found by its walks); it
/// never waits for any other child, so another API's children keep their status.
///
/// The environment variable `PROCEDURES_CONTAINMENT` caps the mechanism ``enable(controlGroups:)``
/// picks: `subreaper` or `processGroup` (for a system where cgroups misbehave).
public enum ProcessContainment {
    /// The ways of containing a program's descendants, weakest first.
    public enum Mechanism: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The program's process group, and walks of its process tree when it is stopped.
        case processGroup
        /// ``processGroup``, and this process adopts (and reaps) orphaned descendants.
        case subreaper
        /// ``subreaper``, and each program runs in a cgroup v2 of its own.
        case controlGroup

        public static func < (lhs: Mechanism, rhs: Mechanism) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .processGroup: return "process group"
            case .subreaper: return "subreaper"
            case .controlGroup: return "cgroup"
            }
        }
    }

    /// The mechanism programs started from now on get.
    public static var mechanism: Mechanism { state.withLock { $0.mechanism } }

    /// Turns containment on (see ``ProcessContainment``): makes this process a child subreaper
    /// and, if `controlGroups` is true and this process may create cgroups, gives each program
    /// started from now on a cgroup of its own. Idempotent; a later call with
    /// `controlGroups: false` stops making cgroups for programs started afterwards. The
    /// subreaper cannot be turned off.
    ///
    /// Call it early, before starting programs: ``endAdoptedOrphans(completion:)`` counts a
    /// child started before as an orphan.
    ///
    /// - Returns: the mechanism now in force (``Mechanism/processGroup`` on systems other
    ///   than Linux).
    @discardableResult
    public static func enable(controlGroups: Bool = false) -> Mechanism {
        #if os(Linux)
        let cap = ProcessInfo.processInfo.environment["PROCEDURES_CONTAINMENT"].flatMap(Mechanism.init(named:))
        let wanted = min(controlGroups ? .controlGroup : .subreaper, cap ?? .controlGroup)
        guard wanted > .processGroup, let prctl = SystemCalls.prctl,
            prctl(36 /* PR_SET_CHILD_SUBREAPER */, 1, 0, 0, 0) == 0
        else { return mechanism }
        let root = wanted == .controlGroup ? (state.withLock { $0.root } ?? ControlGroup.makeRoot()) : nil
        return state.withLock { state in
            if state.mechanism == .processGroup { atexit { ProcessContainment.removeRootAtExit() } }
            if let root { state.root = root }
            state.mechanism = root != nil ? .controlGroup : .subreaper
            return state.mechanism
        }
        #else
        return .processGroup
        #endif
    }

    /// Kills every child of this process that no running ``ProcessProcedure`` started, waits
    /// (without blocking a thread) until each has exited and reaps it, and again for their
    /// children that come back as orphans; then calls `completion` (on another thread; after two
    /// seconds at most, for a process that will not die).
    ///
    /// Only for a process that starts children through procedures alone, typically a
    /// command-line tool about to exit: every other child counts as an orphan it adopted (as a
    /// subreaper, see ``enable(controlGroups:)``), and without the subreaper this does nothing.
    public static func endAdoptedOrphans(completion: @escaping @Sendable () -> Void) {
        guard mechanism >= .subreaper else { return DispatchQueue.global().async(execute: completion) }
        endOrphans(until: Date().addingTimeInterval(2), pause: 0.001, completion: completion)
    }

    // MARK: - For ChildProcess and ProgramContainment

    /// Runs `spawn` (which returns the new child's pid, if any) so that the child is registered
    /// as a program before anything that looks for orphans can see it.
    static func registering(_ spawn: () -> pid_t?) -> pid_t? {
        // Without a subreaper nothing looks for orphans: spawns need not wait for each other.
        guard mechanism > .processGroup else { return spawn() }
        return state.withLock { state in
            let pid = spawn()
            if let pid { state.programs.insert(pid) }
            return pid
        }
    }

    /// The program `pid` has been reaped: its pid is no longer one of ours.
    static func forget(_ pid: pid_t) {
        _ = state.withLock { $0.programs.remove(pid) }
    }

    /// How to contain the program about to be moved in: with a new cgroup, where they are made.
    static func programMode() -> ProgramContainment.Mode {
        let (mechanism, root, serial) = state.withLock { state -> (Mechanism, ControlGroup.Root?, Int) in
            state.serial += 1
            return (state.mechanism, state.root, state.serial)
        }
        switch mechanism {
        case .processGroup: return .processGroup
        case .subreaper: return .subreaper
        case .controlGroup:
            // One left over by an earlier process with this pid may hold the name: one more try.
            guard let root, let group = ControlGroup.make(named: "\(serial)", in: root)
                ?? ControlGroup.make(named: "\(serial)-\(UInt32.random(in: 0...UInt32.max))", in: root)
            else {
                controlGroupsRefused()
                return .subreaper
            }
            return .controlGroup(group, killsAtOnce: root.killsAtOnce)
        }
    }

    /// A cgroup could not be made or a program not moved into it: later programs get walks.
    static func controlGroupsRefused() {
        state.withLock { state in
            if state.mechanism == .controlGroup { state.mechanism = .subreaper }
        }
    }

    /// Reaps every zombie child of this process that is in one of its programs' cgroups: an
    /// orphan it adopted (a child someone else started is in this process's own cgroup).
    static func reapAdoptedZombies() {
        #if os(Linux)
        // Cheap first: is any child a zombie at all? (WNOWAIT leaves it for whoever waits.)
        var info = siginfo_t()
        guard waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid != 0 else { return }
        // Under the lock: a program is registered before it is moved into its cgroup.
        state.withLock { state in
            guard let root = state.root else { return }
            for pid in ProcessTree.children(of: getpid()) where !state.programs.contains(pid) {
                guard ProcessTree.entry(pid)?.isZombie == true,
                    ProcessTree.controlGroup(of: pid)?.hasPrefix(root.path + "/") == true
                else { continue }
                _ = ProcessTree.reapIfZombieChild(pid)
            }
        }
        #endif
    }

    // MARK: - State

    private struct State {
        var mechanism = Mechanism.processGroup
        var root: ControlGroup.Root?
        /// The pids of programs spawned and not yet reaped (while the subreaper is on).
        var programs = Set<pid_t>()
        var serial = 0
    }

    private static let state = Registry()

    /// The state, behind a lock held only for short reads and writes (and for a spawn, which
    /// must not be seen before it is registered).
    private final class Registry: @unchecked Sendable {
        // @unchecked: `value` is only touched inside `withLock`, under `lock`.
        private let lock = Lock()
        private var value = State()

        func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
            try lock.withLock { try body(&value) }
        }
    }

    private static let orphanQueue = DispatchQueue(label: "Procedures.ProcessContainment.orphans")

    private static func endOrphans(until deadline: Date, pause: TimeInterval, completion: @escaping @Sendable () -> Void) {
        orphanQueue.async {
            // Children of ours, unreaped, so their pids cannot change hands: kill and reap freely.
            let orphans = state.withLock { state in ProcessTree.children(of: getpid()).filter { !state.programs.contains($0) } }
            for pid in orphans where !ProcessTree.reapIfZombieChild(pid) { kill(pid, SIGKILL) }
            guard !orphans.isEmpty, Date() < deadline else { return DispatchQueue.global().async(execute: completion) }
            orphanQueue.asyncAfter(deadline: .now() + pause) {
                endOrphans(until: deadline, pause: min(pause * 2, 0.05), completion: completion)
            }
        }
    }

    private static func removeRootAtExit() {
        guard let root = state.withLock({ $0.root }) else { return }
        ControlGroup.removeRoot(root)
    }
}

extension ProcessContainment.Mechanism {
    /// "processGroup", "subreaper", "controlGroup".
    init?(named name: String) {
        switch name {
        case "processGroup": self = .processGroup
        case "subreaper": self = .subreaper
        case "controlGroup": self = .controlGroup
        default: return nil
        }
    }
}
