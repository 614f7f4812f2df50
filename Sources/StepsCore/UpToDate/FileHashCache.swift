import Foundation

/// What `stat` says about a file that changes when its content does: git's and ninja's
/// shortcut for "unchanged", so that a second run reads no file it has hashed before.
struct FileStamp: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Modification and status-change times, in nanoseconds since 1970.
    var modified: Int64
    var changed: Int64

    init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }
}

/// A file's content hash with the stamp it had when it was hashed (or last confirmed).
struct CachedFileHash: Sendable, Equatable {
    var stamp: FileStamp
    var hash: UInt64
    /// When the stamp was read (nanoseconds since 1970, before the `stat`).
    var verified: Int64
}

/// Content hashes of source files, kept across runs in the state file.
///
/// A file whose stamp (device, inode, size, modification and status-change times) is the one
/// recorded is taken as unchanged without being read. What that trades: a change that leaves
/// all five equal goes unseen. The status-change time cannot be set back by a program (unlike
/// the modification time, which `touch -d` or `cp -p` can restore), so that takes rewriting a
/// file with the same size within one tick of the filesystem's clock of the moment it was
/// hashed. Such "racy" entries (git's word) are not trusted: a stamp is only believed when
/// the file's status last changed more than ``racyMargin`` before it was recorded, which
/// covers a coarse kernel clock and filesystems with 1 or 2 second timestamps. A filesystem
/// whose clock runs behind this machine's by more than that (a network mount) can still hide
/// such a rewrite; `--force` rehashes everything.
final class FileHashCache: @unchecked Sendable {
    // @unchecked: `entries`, `seen` and `dirty` are guarded by `lock`; `loaded` is immutable.
    static let racyMargin: Int64 = 2_000_000_000

    private let lock = NSLock()
    private let loaded: [String: CachedFileHash]
    private var entries: [String: CachedFileHash]
    private var seen = Set<String>()
    private var dirty = false

    init(entries: [String: CachedFileHash] = [:]) {
        loaded = entries
        self.entries = entries
    }

    /// The result of looking at one file.
    enum Lookup: Equatable {
        case hashed(UInt64)
        /// It could not be read (gone since it was listed, or no permission): its error.
        case unreadable(String)
    }

    /// The content hash of the file at `path` (absolute), from the cache when its stamp is
    /// trusted (and `trust` allows), else read and hashed with `buffer`.
    func hash(of path: String, trust: Bool, buffer: UnsafeMutableRawBufferPointer) -> Lookup {
        let now = Self.now()
        var info = stat()
        guard stat(path, &info) == 0 else { return .unreadable(String(cString: strerror(errno))) }
        let stamp = FileStamp(info)
        if trust, let known = lock.withLock({ () -> CachedFileHash? in
            seen.insert(path)
            return entries[path]
        }), known.stamp == stamp, stamp.changed < known.verified - Self.racyMargin {
            return .hashed(known.hash)
        }
        switch Self.readHash(path, buffer: buffer) {
        case .hashed(let hash):
            lock.withLock {
                seen.insert(path)
                let entry = CachedFileHash(stamp: stamp, hash: hash, verified: now)
                if entries[path] != entry {
                    entries[path] = entry
                    dirty = true
                }
            }
            return .hashed(hash)
        case let other:
            return other
        }
    }

    /// Whether the content at `path` differs from what the state file said at the start of
    /// the run (nil: the file was not in it).
    func changedSinceLoad(_ path: String, hash: UInt64) -> Bool? {
        loaded[path].map { $0.hash != hash }
    }

    /// Whether anything was hashed anew (the state file needs writing).
    var isDirty: Bool { lock.withLock { dirty } }

    /// The entries to keep: those of the files looked at in this run, and, unless every
    /// step's sources were looked at, the others too (a step skipped this time keeps its
    /// files' hashes for the next run).
    func entriesToKeep(everythingSeen: Bool) -> [String: CachedFileHash] {
        lock.withLock {
            guard everythingSeen else { return entries }
            return entries.filter { seen.contains($0.key) }
        }
    }

    /// Whether keeping only the files seen would drop some.
    func wouldDropUnseen() -> Bool {
        lock.withLock { entries.keys.contains { !seen.contains($0) } }
    }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Reads and hashes a whole file.
    static func readHash(_ path: String, buffer: UnsafeMutableRawBufferPointer) -> Lookup {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .unreadable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var hasher = XXHash64()
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                return .unreadable(String(cString: strerror(errno)))
            }
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return .hashed(hasher.finish())
    }
}
