import Foundation

/// The files a list of patterns matches under a directory, found by walking it with
/// `opendir`/`readdir` (the entry types come with the names, so only matched files and
/// unknown entries cost a `stat`), and the directories the walk read, which `--watch` watches.
struct GlobExpansion: Sendable {
    /// The matched files (regular files, or links to them), relative to the base directory
    /// as the patterns spell them (`../Sources/a.swift`), sorted, each once.
    var files: [String] = []
    /// Literal patterns that name nothing (relative, as written): a source that does not
    /// exist yet is part of what a step depends on.
    var missing: [String] = []
    /// Every directory the walk looked into, and the nearest existing directory of each
    /// missing literal (absolute paths).
    var directories: [String] = []

    /// Walks `base` (an absolute path) for the files of `patterns`.
    init(_ patterns: GlobPatternList, in base: String) {
        var walk = Walk(base: base)
        for pattern in patterns.included { walk.expand(pattern) }
        var files = walk.found
        if !patterns.excluded.isEmpty {
            files = files.filter { path in
                let segments = path.split(separator: "/")
                return !patterns.excluded.contains { $0.matches(segments) }
            }
        }
        self.files = files.sorted()
        missing = walk.missing
        directories = Array(walk.listed.keys) + walk.watchedParents
    }

    /// Whether a path (relative to the base, or absolute) exists.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}

/// One directory's entries, as `readdir` gives them.
private struct Entry {
    var name: String
    var isDirectory: Bool
    var isFile: Bool
    /// A symbolic link: `**` does not follow it into a directory (no cycles).
    var isLink: Bool
}

private struct Walk {
    let base: String
    var found = Set<String>()
    var missing: [String] = []
    /// Listings by absolute path, so a directory reached twice (through `**`) is read once.
    var listed: [String: [Entry]] = [:]
    var watchedParents: [String] = []

    init(base: String) { self.base = base }

    func absolute(_ relative: String) -> String {
        relative.hasPrefix("/") ? relative : relative.isEmpty ? base : base + "/" + relative
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.isEmpty ? name : directory == "/" ? "/" + name : directory + "/" + name
    }

    mutating func expand(_ pattern: GlobPattern) {
        let prefix = pattern.literalPrefix
        let start = (pattern.isAbsolute ? "/" : "") + prefix.joined(separator: "/")
        guard pattern.hasWildcards else {
            literal(start)
            return
        }
        let path = absolute(start)
        guard kind(of: path) == .directory else {
            watchNearestExisting(of: path)
            return
        }
        visit(directory: start, segments: pattern.segments[prefix.count...])
    }

    /// A pattern without wildcards: a file, every file under a directory, or missing.
    private mutating func literal(_ relative: String) {
        let path = absolute(relative)
        switch kind(of: path) {
        case .file:
            found.insert(relative)
            watchedParents.append((path as NSString).deletingLastPathComponent)
        case .directory:
            everything(under: relative)
        case .missing:
            missing.append(relative)
            watchNearestExisting(of: path)
        }
    }

    private mutating func watchNearestExisting(of path: String) {
        var directory = (path as NSString).deletingLastPathComponent
        while !directory.isEmpty, directory != "/", kind(of: directory) != .directory {
            directory = (directory as NSString).deletingLastPathComponent
        }
        watchedParents.append(directory.isEmpty ? base : directory)
    }

    private mutating func visit(directory: String, segments: ArraySlice<GlobPattern.Segment>) {
        guard let segment = segments.first else { return }
        let rest = segments.dropFirst()
        switch segment {
        case .literal(let name):
            let child = Self.join(directory, name)
            if rest.isEmpty {
                literal(child)
            } else if kind(of: absolute(child)) == .directory {
                visit(directory: child, segments: rest)
            }
        case .wildcard(let pattern):
            for entry in entries(of: directory) where GlobPattern.matches(entry.name, segment: pattern) {
                let child = Self.join(directory, entry.name)
                if rest.isEmpty {
                    if entry.isFile { found.insert(child) }
                } else if entry.isDirectory {
                    visit(directory: child, segments: rest)
                }
            }
        case .anyDirectories:
            guard !rest.isEmpty else {
                everything(under: directory)
                return
            }
            // No directory, then one more (never a hidden one, never through a link).
            visit(directory: directory, segments: rest)
            for entry in entries(of: directory) where entry.isDirectory && !entry.isLink && !entry.name.hasPrefix(".") {
                visit(directory: Self.join(directory, entry.name), segments: segments)
            }
        }
    }

    /// Every file under a directory, hidden ones left out; iterative, so a deep tree cannot
    /// exhaust the stack.
    private mutating func everything(under root: String) {
        var pending = [root]
        while let directory = pending.popLast() {
            for entry in entries(of: directory) where !entry.name.hasPrefix(".") {
                let child = Self.join(directory, entry.name)
                if entry.isFile {
                    found.insert(child)
                } else if entry.isDirectory && !entry.isLink {
                    pending.append(child)
                }
            }
        }
    }

    private mutating func entries(of directory: String) -> [Entry] {
        let path = absolute(directory)
        if let known = listed[path] { return known }
        var entries: [Entry] = []
        if let handle = opendir(path) {
            while let entry = readdir(handle) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_REG): entries.append(Entry(name: name, isDirectory: false, isFile: true, isLink: false))
                case Int32(DT_DIR): entries.append(Entry(name: name, isDirectory: true, isFile: false, isLink: false))
                case Int32(DT_LNK), Int32(DT_UNKNOWN):
                    let isLink = Int32(entry.pointee.d_type) == Int32(DT_LNK)
                    switch kind(of: Self.join(path, name)) {
                    case .file: entries.append(Entry(name: name, isDirectory: false, isFile: true, isLink: isLink))
                    case .directory: entries.append(Entry(name: name, isDirectory: true, isFile: false, isLink: isLink))
                    case .missing: break  // a dangling link
                    }
                default:
                    break  // sockets, devices, pipes: not sources
                }
            }
            closedir(handle)
        }
        listed[path] = entries
        return entries
    }

    private enum Kind { case file, directory, missing }

    /// What is at a path, following links.
    private func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .missing
        }
    }
}
