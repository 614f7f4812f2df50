#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One program's descendants, as far as ``ProcessContainment``'s mechanism lets us know them,
/// and the means to stop them. Owned by a ``ChildProcess`` and used only on its queue (after
/// the spawning thread set it up).
///
/// - `.controlGroup`: the program's cgroup holds them all; it is killed with `cgroup.kill`, and
///   the members it had are followed by identity until they have been reaped.
/// - `.subreaper`, `.processGroup`: the program's process tree is walked (when it is stopped,
///   and when the grace period ends) and what the walk finds is recorded by identity, so that it
///   can be signalled even after its parent has exited. With a subreaper, those that come back
///   to this process as orphans are reaped here.
final class ProgramContainment: @unchecked Sendable {
    // @unchecked: confined to the owning ChildProcess's serial queue.
    enum Mode {
        case processGroup
        case subreaper
        case controlGroup(ControlGroup, killsAtOnce: Bool)
    }

    let leader: pid_t
    let mode: Mode
    /// Descendants found by walks (never the leader): pid → start time.
    private var found: [pid_t: UInt64] = [:]
    /// Set once the leader has been reaped: its pid may belong to anyone after that, so walks
    /// no longer start from it.
    var leaderIsReaped = false

    private init(leader: pid_t, mode: Mode) {
        self.leader = leader
        self.mode = mode
    }

    /// The mechanism for a program about to be spawned: its cgroup is made now, so that only a
    /// write is left to do between the spawn and the move.
    static func prepare() -> Mode {
        ProcessContainment.programMode()
    }

    /// Sets up containment for a program just spawned (its pid is registered with
    /// ``ProcessContainment`` already): moves it into its cgroup when that is the mechanism,
    /// with whatever it has started since it began.
    static func contain(_ leader: pid_t, prepared mode: Mode) -> ProgramContainment {
        guard case .controlGroup(let group, _) = mode else { return ProgramContainment(leader: leader, mode: mode) }
        // posix_spawn returns once the program has exec'd, and a move takes a while (the kernel
        // waits for an RCU grace period, milliseconds): stopped, the program cannot fork and
        // let a descendant slip out meanwhile. It has usually not run anything yet (unless this
        // thread was preempted since the spawn).
        kill(leader, SIGSTOP)
        defer { kill(leader, SIGCONT) }
        let refusal = group.add(leader)
        guard refusal == 0 || refusal == ESRCH else {
            // Not allowed after all (delegation rules, a controller's constraints): walk trees.
            group.remove()
            ProcessContainment.controlGroupsRefused()
            return ProgramContainment(leader: leader, mode: .subreaper)
        }
        // Anything it started before the stop took effect joins it: each process is moved
        // before its children are listed, so a child it forks meanwhile is born in the cgroup.
        var seen: Set<pid_t> = [leader]
        var moved = [leader]
        while let parent = moved.popLast() {
            for child in ProcessTree.children(of: parent) where seen.insert(child).inserted {
                guard ProcessTree.entry(child)?.parent == parent else { continue }
                _ = group.add(child)
                moved.append(child)
            }
        }
        return ProgramContainment(leader: leader, mode: mode)
    }

    /// Gives up a prepared mode whose program could not be spawned.
    static func discard(_ mode: Mode) {
        if case .controlGroup(let group, _) = mode { group.remove() }
    }

    /// Sends `signal` to the descendants that left the leader's process group (the group itself
    /// is signalled by the caller), after recording them. Call it while the leader runs, before
    /// signalling the group, so that the tree is still whole.
    func signalOutsideGroup(_ signal: Int32) {
        switch mode {
        case .controlGroup(let group, _):
            let path = group.path
            for pid in group.members where pid != leader {
                guard let entry = ProcessTree.entry(pid), entry.group != leader else { continue }
                ProcessTree.send(signal, to: entry.identity) { _ in ProcessTree.controlGroup(of: pid) == path }
            }
        case .processGroup, .subreaper:
            survey()
            for (pid, startTime) in found {
                let identity = ProcessTree.Identity(pid: pid, startTime: startTime)
                ProcessTree.send(signal, to: identity) { $0.group != self.leader && !$0.isZombie }
            }
        }
    }

    /// SIGKILL to every descendant known (all of them, with a cgroup). Once the leader has
    /// exited its children are no longer below it: only what earlier walks found is walked.
    func killAll(leaderHasExited: Bool) {
        switch mode {
        case .controlGroup(let group, let killsAtOnce):
            recordMembers(of: group)
            group.killAll(atOnce: killsAtOnce)
        case .processGroup, .subreaper:
            if leaderHasExited && found.isEmpty { return }  // nothing to walk from: the usual exit
            survey(fromLeader: !leaderHasExited)
            for (pid, startTime) in found {
                ProcessTree.send(SIGKILL, to: ProcessTree.Identity(pid: pid, startTime: startTime)) { !$0.isZombie }
            }
        }
    }

    /// Whether every descendant killed by ``killAll(leaderHasExited:)`` has exited, and the
    /// members of the leader's group too, reaping those that came back to this process (a
    /// subreaper). Call it again, a little later, while it says false.
    func settle() -> Bool {
        var walks = true
        if case .controlGroup(let group, let killsAtOnce) = mode {
            if group.isPopulated {
                recordMembers(of: group)  // one forked while the first kill went round
                group.killAll(atOnce: killsAtOnce)
                return false
            }
            walks = false
        }
        let adopts = if case .processGroup = mode { false } else { true }
        if adopts {
            // Members of its group killed with it come back as orphans (their parent died with
            // them), even one that exited before it could be moved into a cgroup. While one is
            // a zombie the group's id cannot be reused, so any zombie child in that group is one.
            while ProcessTree.reapZombieChild(inGroup: leader) {}
            if kill(-leader, 0) == 0 { return false }  // some are still dying
        }
        for (pid, startTime) in found {
            guard let entry = ProcessTree.entry(pid), entry.startTime == startTime else {
                found[pid] = nil  // gone: reaped by its parent
                continue
            }
            if !entry.isZombie {
                ProcessTree.send(SIGKILL, to: entry.identity)
                guard walks else { continue }
                let below = ProcessTree.descendants(of: [pid])
                if ProcessTree.entry(pid)?.startTime == startTime { record(below) }  // the same process throughout
            } else if !adopts {
                found[pid] = nil  // dead; its parent (or init) reaps it
            } else if entry.parent == getpid() {
                if ProcessTree.reapIfZombieChild(pid) { found[pid] = nil }
            } else if walks, found[entry.parent] == nil, entry.parent != leader, let parent = ProcessTree.entry(entry.parent) {
                // Its parent is a descendant no walk saw: kill it too, so the zombie comes to us.
                record([parent])
                ProcessTree.send(SIGKILL, to: parent.identity)
            }
        }
        guard found.isEmpty else { return false }
        // Every member that was killed has been reaped, so whatever zombies it had have come to
        // us: reap them, with the orphans that exited on their own before.
        if !walks { ProcessContainment.reapAdoptedZombies() }
        return true
    }

    /// Removes the program's cgroup (once it is empty).
    func release() {
        if case .controlGroup(let group, _) = mode { group.remove() }
    }

    /// Walks the tree below the leader (while it is still there) and below every descendant
    /// recorded so far, recording what it finds.
    private func survey(fromLeader: Bool = true) {
        let running = found.filter { ProcessTree.isRunning(.init(pid: $0.key, startTime: $0.value)) }
        record(ProcessTree.descendants(of: (fromLeader && !leaderIsReaped ? [leader] : []) + running.keys))
    }

    private func recordMembers(of group: ControlGroup) {
        record(group.members.compactMap { ProcessTree.entry($0) })
    }

    private func record(_ entries: [ProcessTree.Entry]) {
        for entry in entries where entry.pid != leader { found[entry.pid] = entry.startTime }
    }
}
