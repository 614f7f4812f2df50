#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `/proc` says about processes: who is whose child, and a way to signal a process that is
/// not our child without hitting another that got its pid since (Linux only; elsewhere every
/// answer is empty and nothing is signalled).
///
/// A process is named by its ``Identity``: its pid and the time it started. A pid found in a
/// listing can exit, be reaped by its parent and be given to a new process before we act on it;
/// the start time tells the two apart, and a pidfd opened before checking it pins the process
/// that was checked.
enum ProcessTree {
    /// One process, as `/proc/PID/stat` describes it.
    struct Entry {
        var pid: pid_t
        /// The state letter: "R", "S", "D", "T", "Z" (zombie)…
        var state: UInt8
        var parent: pid_t
        var group: pid_t
        var startTime: UInt64

        var identity: Identity { Identity(pid: pid, startTime: startTime) }
        var isZombie: Bool { state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") }
    }

    /// A process that may have exited since it was seen.
    struct Identity: Hashable {
        var pid: pid_t
        var startTime: UInt64
    }

    /// `/proc/PID/stat`, or nil if there is no such process.
    static func entry(_ pid: pid_t) -> Entry? {
        #if os(Linux)
        guard let bytes = readSmallFile("/proc/\(pid)/stat"),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
        // cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime …
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let state = fields[0].first else { return nil }
        func number(_ index: Int) -> Int64 { Int64(String(decoding: fields[index], as: UTF8.self)) ?? -1 }
        return Entry(
            pid: pid, state: state, parent: pid_t(number(1)), group: pid_t(number(2)),
            startTime: UInt64(max(0, number(19))))
        #else
        return nil
        #endif
    }

    /// Whether `identity` still names a process that has not exited (a zombie has exited).
    static func isRunning(_ identity: Identity) -> Bool {
        guard let entry = entry(identity.pid), entry.startTime == identity.startTime else { return false }
        return !entry.isZombie
    }

    /// The children of `pid` (of every thread of it).
    static func children(of pid: pid_t) -> [pid_t] {
        #if os(Linux)
        guard let tasks = names(in: "/proc/\(pid)/task") else { return [] }
        var found: [pid_t] = []
        var sawChildrenFile = false
        for name in tasks {
            guard let tid = pid_t(name) else { continue }
            // Needs CONFIG_PROC_CHILDREN (every major distribution's kernel has it).
            guard let bytes = readSmallFile("/proc/\(pid)/task/\(tid)/children") else { continue }
            sawChildrenFile = true
            found += bytes.split(separator: UInt8(ascii: " ")).compactMap { pid_t(String(decoding: $0, as: UTF8.self)) }
        }
        return sawChildrenFile ? found : childrenByScanning(of: pid)
        #else
        return []
        #endif
    }

    /// Every process below `roots` (not the roots themselves), parents before their children.
    static func descendants(of roots: [pid_t]) -> [Entry] {
        var found: [Entry] = []
        var seen = Set(roots)
        var next = roots
        while !next.isEmpty {
            var level: [pid_t] = []
            for parent in next {
                for child in children(of: parent) where seen.insert(child).inserted {
                    // Still its child (not reparented since the listing)?
                    guard let entry = entry(child), entry.parent == parent else { continue }
                    found.append(entry)
                    level.append(child)
                }
            }
            next = level
        }
        return found
    }

    /// The cgroup v2 path of `pid` ("/a/b"), which a zombie still has; nil if none.
    static func controlGroup(of pid: pid_t) -> String? {
        #if os(Linux)
        guard let bytes = readSmallFile("/proc/\(pid)/cgroup") else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("0::".utf8)) {
            return String(decoding: line.dropFirst(3), as: UTF8.self)
        }
        return nil
        #else
        return nil
        #endif
    }

    /// Sends `signal` to the process `identity` names, if it is still that process and
    /// `stillOurs` (given its entry) agrees. False if nothing was sent.
    @discardableResult
    static func send(_ signal: Int32, to identity: Identity, if stillOurs: (Entry) -> Bool = { _ in true }) -> Bool {
        #if os(Linux)
        if let pidfdOpen = SystemCalls.pidfdOpen, let sendSignal = SystemCalls.pidfdSendSignal {
            let pidfd = pidfdOpen(identity.pid, 0)
            guard pidfd >= 0 else { return false }
            defer { close(pidfd) }
            // The pidfd now holds whatever process had the pid: check that it is the one we mean.
            guard let entry = entry(identity.pid), entry.startTime == identity.startTime, stillOurs(entry) else { return false }
            return sendSignal(pidfd, signal, nil, 0) == 0
        }
        guard let entry = entry(identity.pid), entry.startTime == identity.startTime, stillOurs(entry) else { return false }
        return kill(identity.pid, signal) == 0
        #else
        return false
        #endif
    }

    /// Reaps `pid` if it is a zombie child of this process; true if it was reaped.
    static func reapIfZombieChild(_ pid: pid_t) -> Bool {
        #if os(Linux)
        var info = siginfo_t()
        var answered: Int32
        repeat {
            answered = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG)
        } while answered < 0 && errno == EINTR
        return answered == 0 && info._sifields._sigchld.si_pid == pid
        #else
        return false
        #endif
    }

    /// Reaps one zombie child of this process in process group `group`; true if it did.
    static func reapZombieChild(inGroup group: pid_t) -> Bool {
        #if os(Linux)
        var info = siginfo_t()
        var answered: Int32
        repeat {
            answered = waitid(P_PGID, id_t(group), &info, WEXITED | WNOHANG)
        } while answered < 0 && errno == EINTR
        return answered == 0 && info._sifields._sigchld.si_pid != 0
        #else
        return false
        #endif
    }

    #if os(Linux)
    /// The names in a directory (without "." and ".."), or nil if it cannot be read.
    static func names(in directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Without `/proc/PID/task/TID/children`: every process's parent, from its stat.
    private static func childrenByScanning(of pid: pid_t) -> [pid_t] {
        (names(in: "/proc") ?? []).compactMap { pid_t($0) }.filter { entry($0)?.parent == pid }
    }

    /// The contents of a small file (`/proc`, cgroup files), or nil if it cannot be read.
    static func readSmallFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return bytes.isEmpty ? nil : bytes }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
    #endif
}
