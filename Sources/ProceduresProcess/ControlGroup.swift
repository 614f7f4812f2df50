#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A cgroup v2 of its own for one program: everything the program starts lands in it (a fork
/// inherits its parent's cgroup, and only a privileged process can move itself out), so its
/// member list is the program's whole family, `cgroup.kill` ends them all at once, and a zombie
/// still names it in `/proc/PID/cgroup`, which tells an orphan we adopted from a child someone
/// else started. Linux only.
///
/// They live under one directory per process, `procedures-PID`, made below this process's own
/// cgroup: only where this process may create cgroups and move processes into them (root, or a
/// cgroup delegated to it, as systemd does for `Delegate=yes` units and user scopes).
struct ControlGroup {
    /// The directory, e.g. `/sys/fs/cgroup/procedures-812/3`.
    let directory: String
    /// The cgroup's path as `/proc/PID/cgroup` shows it, e.g. `/procedures-812/3`.
    let path: String

    /// The directory under which this process makes its programs' cgroups.
    struct Root {
        let directory: String
        let path: String
        /// Whether `cgroup.kill` exists (Linux 5.14): otherwise members are killed one by one.
        let killsAtOnce: Bool
    }

    /// Makes this process's directory for program cgroups, or nil if it cannot. Directories
    /// that processes which have since exited left behind are removed, when empty.
    static func makeRoot() -> Root? {
        #if os(Linux)
        guard let own = ownControlGroup(), let mount = mountPoint(containing: own) else { return nil }
        let base = own == "/" ? "" : own
        let parentDirectory = mount.directory + String(base.dropFirst(mount.root == "/" ? 0 : mount.root.count))
        removeAbandonedRoots(in: parentDirectory)
        let name = "procedures-\(getpid())"
        let directory = parentDirectory + "/" + name
        if mkdir(directory, 0o755) != 0 {
            // Left by an earlier process that had this pid: its empty cgroups go.
            guard errno == EEXIST else { return nil }
            removeGroups(in: directory, keepingDirectory: true)
        }
        guard access(directory + "/cgroup.procs", W_OK) == 0 else { return nil }
        return Root(directory: directory, path: base + "/" + name, killsAtOnce: access(directory + "/cgroup.kill", W_OK) == 0)
        #else
        return nil
        #endif
    }

    /// A new, empty cgroup `name` under `root`, or nil if it cannot be made.
    static func make(named name: String, in root: Root) -> ControlGroup? {
        let directory = root.directory + "/" + name
        guard mkdir(directory, 0o755) == 0 else { return nil }
        return ControlGroup(directory: directory, path: root.path + "/" + name)
    }

    /// Moves `pid` into this cgroup: 0, or the `errno` of the refusal.
    func add(_ pid: pid_t) -> Int32 {
        writeFile("cgroup.procs", "\(pid)")
    }

    /// The processes in it that have not exited.
    var members: [pid_t] {
        #if os(Linux)
        guard let bytes = ProcessTree.readSmallFile(directory + "/cgroup.procs") else { return [] }
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap { pid_t(String(decoding: $0, as: UTF8.self)) }
        #else
        return []
        #endif
    }

    /// Whether a process in it has not exited yet ("populated 1" in `cgroup.events`).
    var isPopulated: Bool {
        #if os(Linux)
        guard let bytes = ProcessTree.readSmallFile(directory + "/cgroup.events") else { return false }
        return String(decoding: bytes, as: UTF8.self).contains("populated 1")
        #else
        return false
        #endif
    }

    /// SIGKILL to every member, at once where the kernel can.
    func killAll(atOnce: Bool) {
        if atOnce, writeFile("cgroup.kill", "1") == 0 { return }
        for pid in members {
            let path = self.path
            if let entry = ProcessTree.entry(pid) {
                ProcessTree.send(SIGKILL, to: entry.identity) { _ in ProcessTree.controlGroup(of: pid) == path }
            }
        }
    }

    /// Removes the directory; fails (harmlessly) while a process is still in it.
    @discardableResult
    func remove() -> Bool {
        rmdir(directory) == 0
    }

    private func writeFile(_ file: String, _ text: String) -> Int32 {
        let fd = open(directory + "/" + file, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let written = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        return written < 0 ? errno : 0
    }

    #if os(Linux)
    /// This process's cgroup v2 path ("0::/path" in `/proc/self/cgroup`).
    private static func ownControlGroup() -> String? {
        ProcessTree.controlGroup(of: getpid())
    }

    /// Where the cgroup v2 hierarchy that holds `own` is mounted, from `/proc/self/mountinfo`
    /// ("… root mountpoint … - cgroup2 …"): `root` is the part of the hierarchy the mount shows.
    private static func mountPoint(containing own: String) -> (directory: String, root: String)? {
        guard let bytes = ProcessTree.readSmallFile("/proc/self/mountinfo") else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            guard let separator = text.range(of: " - ") else { continue }
            guard text[separator.upperBound...].hasPrefix("cgroup2 ") else { continue }
            let fields = text[..<separator.lowerBound].split(separator: " ")
            guard fields.count >= 5 else { continue }
            let root = unescape(fields[3]), directory = unescape(fields[4])
            if root == "/" || own == root || own.hasPrefix(root + "/") {
                return (directory, root)
            }
        }
        return nil
    }

    /// mountinfo writes spaces and a few other bytes as octal escapes ("\040").
    private static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let first = rest.first {
            if first == UInt8(ascii: "\\"), rest.count >= 4,
                let value = UInt8(String(decoding: rest.dropFirst().prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(first)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `procedures-PID` directories whose process has exited (killed before it could clean
    /// up): their empty cgroups are removed. One still holding a process stays.
    private static func removeAbandonedRoots(in parentDirectory: String) {
        for name in ProcessTree.names(in: parentDirectory) ?? [] {
            guard name.hasPrefix("procedures-"), let owner = pid_t(name.dropFirst("procedures-".count)),
                owner != getpid(), kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            removeGroups(in: parentDirectory + "/" + name)
        }
    }
    #endif

    /// Removes this process's directory of program cgroups, and those left empty in it.
    static func removeRoot(_ root: Root) {
        #if os(Linux)
        removeGroups(in: root.directory)
        #endif
    }

    #if os(Linux)
    /// Removes the empty numbered cgroups in `directory`, then `directory` itself if it is empty.
    private static func removeGroups(in directory: String, keepingDirectory: Bool = false) {
        for name in ProcessTree.names(in: directory) ?? [] where name.first?.isNumber == true {
            rmdir(directory + "/" + name)
        }
        if !keepingDirectory { rmdir(directory) }
    }
    #endif
}
