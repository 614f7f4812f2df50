import Foundation

/// Watches directories with Linux's inotify and reports what changed in them: a file
/// written, created, deleted or moved in or out, a directory appearing or going.
///
/// inotify watches one directory, not a tree, so the caller names every directory it cares
/// about (``watch(_:)`` replaces the set); a watch is one descriptor entry in the kernel, not a
/// thread, and the events are read by a Dispatch read source on the caller's queue. A change
/// of permissions or times alone (`touch`) is not reported: only content counts for `steps`.
final class SourceWatcher: @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `queue` (the source's handler runs
    // there, and callers call from there).

    /// One reported change.
    struct Change: Sendable, Equatable {
        /// The changed entry's path: each path its directory was watched under, joined with
        /// its name (a directory reached through two patterns has two).
        var paths: [String]
        /// A directory appeared, went, or the kernel dropped events: the watched set must be
        /// recomputed.
        var directoriesChanged: Bool
    }

    private static let mask = UInt32(
        IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_ONLYDIR | IN_EXCL_UNLINK)

    private let descriptor: Int32
    private let queue: DispatchQueue
    private let source: any DispatchSourceRead
    private let onChange: @Sendable ([Change]) -> Void
    /// Each watch's directory, by every path it was asked for under.
    private var directories: [Int32: Set<String>] = [:]
    private var watches: [String: Int32] = [:]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts reading events; `onChange` is called on `queue` with each batch read.
    init(queue: DispatchQueue, onChange: @escaping @Sendable ([Change]) -> Void) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Failure(description: "cannot watch files: inotify_init1: \(String(cString: strerror(errno)))") }
        self.queue = queue
        self.onChange = onChange
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.read() }
        let descriptor = self.descriptor
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    /// Watches exactly `paths` (directories) from now on. Returns the paths that could not be
    /// watched (gone, or past the kernel's `max_user_watches`), with why.
    @discardableResult
    func watch(_ paths: Set<String>) -> [(path: String, reason: String)] {
        dispatchPrecondition(condition: .onQueue(queue))
        var failed: [(String, String)] = []
        for path in watches.keys where !paths.contains(path) {
            let wd = watches.removeValue(forKey: path)!
            directories[wd]?.remove(path)
            if directories[wd]?.isEmpty ?? false {
                directories[wd] = nil
                inotify_rm_watch(descriptor, wd)
            }
        }
        for path in paths where watches[path] == nil {
            let wd = inotify_add_watch(descriptor, path, Self.mask)
            if wd < 0 {
                failed.append((path, String(cString: strerror(errno))))
                continue
            }
            // The kernel gives the same number for a directory watched twice (through two paths).
            watches[path] = wd
            directories[wd, default: []].insert(path)
        }
        return failed
    }

    var watchedCount: Int { watches.count }

    func stop() {
        source.cancel()
    }

    private func read() {
        var changes: [Change] = []
        let size = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, size)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + 16)..<min(count, offset + 16 + length)])
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                changes.append(change(wd: wd, mask: mask, name: name))
            }
        }
        if !changes.isEmpty { onChange(changes) }
    }

    private func change(wd: Int32, mask: UInt32, name: String) -> Change {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 { return Change(paths: [], directoriesChanged: true) }
        if mask & UInt32(IN_IGNORED) != 0 {
            // The directory went (or was unwatched): forget it.
            for path in directories.removeValue(forKey: wd) ?? [] { watches[path] = nil }
            return Change(paths: [], directoriesChanged: true)
        }
        let bases = directories[wd] ?? []
        let paths = name.isEmpty ? Array(bases) : bases.map { $0 + "/" + name }
        let structural = mask & UInt32(IN_ISDIR) != 0 || mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0
        return Change(paths: paths, directoriesChanged: structural)
    }
}
