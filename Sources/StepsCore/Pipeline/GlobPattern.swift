import Foundation

/// A `sources` or `generates` pattern: a path relative to the step's directory (or absolute),
/// whose segments may hold wildcards.
///
/// - `*` matches any characters within one segment, `?` one character, `[abc]` one of a set
///   (as the shell and `fnmatch` do); `**` as a whole segment matches any number of
///   directories, none included.
/// - A wildcard never matches a name that starts with `.` unless the pattern's segment starts
///   with `.` too, so `Sources/**` leaves out `.build`, `.git` and `.steps`, as the shell would.
/// - A pattern without wildcards that names a directory stands for every file under it
///   (`Sources` is `Sources/**`); wildcards match files only (`Sources/*` is the files at the
///   top of `Sources`).
/// - A pattern starting with `!` takes away the files it matches from those of the others.
///
/// Segments `.` and empty ones are dropped; `..` is kept as written (never resolved against
/// the path before it, which a symbolic link could make wrong).
struct GlobPattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case wildcard(String)
        /// `**`: any number of directories.
        case anyDirectories
    }

    /// The pattern as written.
    let text: String
    let isAbsolute: Bool
    /// A pattern starting with `!`: it takes files away.
    let isExclusion: Bool
    let segments: [Segment]

    var description: String { text }

    /// Why a pattern cannot be used, for the checker's message.
    struct Problem: Error, Equatable {
        let reason: String
    }

    init(_ text: String) throws(Problem) {
        self.text = text
        var body = Substring(text)
        isExclusion = body.hasPrefix("!")
        if isExclusion { body = body.dropFirst() }
        guard !body.isEmpty else { throw Problem(reason: isExclusion ? "'!' needs a pattern after it" : "the pattern is empty") }
        isAbsolute = body.hasPrefix("/")
        var segments: [Segment] = []
        for part in body.split(separator: "/") where part != "." {
            if part == "**" {
                if segments.last != .anyDirectories { segments.append(.anyDirectories) }
            } else if part.contains(where: { "*?[".contains($0) }) {
                guard Self.isValidClass(part) else { throw Problem(reason: "'[' without a closing ']' in '\(part)'") }
                segments.append(.wildcard(String(part)))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        guard !segments.isEmpty else { throw Problem(reason: "the pattern names no file") }
        self.segments = segments
    }

    /// Whether every `[` opens a class that is closed.
    private static func isValidClass(_ part: Substring) -> Bool {
        var index = part.startIndex
        while index < part.endIndex {
            if part[index] == "[" {
                var close = part.index(after: index)
                if close < part.endIndex, part[close] == "!" || part[close] == "^" { close = part.index(after: close) }
                if close < part.endIndex, part[close] == "]" { close = part.index(after: close) }  // a leading ] is literal
                guard let end = part[close...].firstIndex(of: "]") else { return false }
                index = part.index(after: end)
            } else {
                index = part.index(after: index)
            }
        }
        return true
    }

    var hasWildcards: Bool {
        segments.contains { if case .literal = $0 { false } else { true } }
    }

    /// The segments before the first wildcard: the directory a walk starts from.
    var literalPrefix: [String] {
        var prefix: [String] = []
        for segment in segments {
            guard case .literal(let name) = segment else { break }
            prefix.append(name)
        }
        return prefix
    }

    /// Whether one name matches one wildcard segment (the dot rule included).
    static func matches(_ name: String, segment pattern: String) -> Bool {
        fnmatch(pattern, name, FNM_PERIOD) == 0
    }

    /// Whether a path, given as segments relative to the same directory as the pattern,
    /// matches it. A path under a directory a literal pattern names matches too (`Sources`
    /// matches `Sources/a.swift`).
    func matches(_ path: [Substring]) -> Bool {
        // table[i][j]: the first i segments of the pattern match the first j of the path.
        let m = segments.count
        let n = path.count
        var table = [[Bool]](repeating: [Bool](repeating: false, count: n + 1), count: m + 1)
        table[0][0] = true
        for i in 1...m {
            let segment = segments[i - 1]
            if segment == .anyDirectories { table[i][0] = table[i - 1][0] }
            for j in stride(from: 1, through: n, by: 1) {
                let name = path[j - 1]
                switch segment {
                case .anyDirectories:
                    // Zero directories, or one more that is not hidden.
                    table[i][j] = table[i - 1][j] || (table[i][j - 1] && !name.hasPrefix("."))
                case .literal(let literal):
                    table[i][j] = table[i - 1][j - 1] && name == literal
                case .wildcard(let pattern):
                    table[i][j] = table[i - 1][j - 1] && Self.matches(String(name), segment: pattern)
                }
            }
        }
        // A whole match, or a literal pattern named a directory the path is under (its files
        // count, the hidden ones left out as `**` would).
        if table[m][n] { return true }
        guard !hasWildcards, m < n, table[m][m] else { return false }
        return !path[m...].contains { $0.hasPrefix(".") }
    }

    /// Whether `path` (relative to the pattern's directory, or absolute for an absolute
    /// pattern) matches, as a string.
    func matches(path: String) -> Bool {
        matches(path.split(separator: "/").filter { $0 != "." })
    }
}

/// The patterns of a step's `sources` or `generates`: the files of the positive ones, less
/// those of the exclusions.
struct GlobPatternList: Sendable, Equatable {
    let patterns: [GlobPattern]

    var included: [GlobPattern] { patterns.filter { !$0.isExclusion } }
    var excluded: [GlobPattern] { patterns.filter(\.isExclusion) }

    /// Whether a path relative to the patterns' directory is one of their files.
    func matches(path: String) -> Bool {
        let segments = path.split(separator: "/").filter { $0 != "." }
        return included.contains { $0.matches(segments) } && !excluded.contains { $0.matches(segments) }
    }

    /// Whether an absolute path is one of their files, the relative patterns being relative
    /// to `base` (the path must be spelt from `base` as the walk spells it: `base/../x`).
    func matches(_ path: String, base: String) -> Bool {
        let absolute = path.split(separator: "/").filter { $0 != "." }
        let relative = path.hasPrefix(base + "/") ? path.dropFirst(base.count + 1).split(separator: "/").filter { $0 != "." } : nil
        func match(_ pattern: GlobPattern) -> Bool {
            if pattern.isAbsolute { return pattern.matches(absolute) }
            return relative.map(pattern.matches) ?? false
        }
        return included.contains(where: match) && !excluded.contains(where: match)
    }
}
