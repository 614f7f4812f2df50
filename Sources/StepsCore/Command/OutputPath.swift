import Foundation

/// Checks, before anything runs, that what the run will write (`--trace`, `--graph`, the log
/// directory) can be written, so that a mistyped path is refused at once instead of after the
/// whole pipeline has run. Reasons are the system's ("Permission denied").
enum OutputPath {
    /// Why a file cannot be created or replaced at `path`, or nil if it can.
    static func problemWritingFile(at path: String) -> String? {
        var status = stat()
        if stat(path, &status) == 0 {
            if status.st_mode & S_IFMT == S_IFDIR { return reason(EISDIR) }
            return access(path, W_OK) == 0 ? nil : reason(errno)
        }
        guard errno == ENOENT else { return reason(errno) }
        return problemWritingInto(parent(of: path), for: path)
    }

    /// Why a directory cannot be created (with its missing parents) or written into at `path`,
    /// or nil if it can.
    static func problemWritingDirectory(at path: String) -> String? {
        var existing = path
        var status = stat()
        // The nearest part of the path that exists decides.
        while stat(existing, &status) != 0 {
            let code = errno
            let up = parent(of: existing)
            guard code == ENOENT, up != existing else { return (existing == path ? "" : "\(existing): ") + reason(code) }
            existing = up
        }
        return problemWritingInto(existing, for: path)
    }

    /// Why `directory` cannot be written into (to make `path`), or nil. The reason names
    /// `directory` when it is not `path` itself.
    private static func problemWritingInto(_ directory: String, for path: String) -> String? {
        let prefix = directory == path ? "" : "\(directory): "
        var status = stat()
        guard stat(directory, &status) == 0 else { return prefix + reason(errno) }
        guard status.st_mode & S_IFMT == S_IFDIR else { return prefix + reason(ENOTDIR) }
        return access(directory, W_OK | X_OK) == 0 ? nil : prefix + reason(errno)
    }

    private static func parent(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        return parent.isEmpty ? "/" : parent
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
