import Foundation

/// Checks, before anything runs, that what the run will write (`--trace`, `--graph`, the log
/// directory) can be written, so that a mistyped path is refused at once instead of after the
/// whole pipeline has run.
///
/// The system itself is asked, by doing what the run will do and undoing it: a file is opened
/// for writing (created, given a byte of room, and removed, if it did not exist), a directory
/// is made with its missing parents and a file created in it (then all of it removed). So
/// `/proc`, `/sys`, a read-only mount and a full disk are refused, and the reasons are the
/// system's ("Read-only file system", "No space left on device").
enum OutputPath {
    /// Why a file cannot be created or replaced at `path`, or nil if it can. An existing file
    /// is left as it is.
    static func problemWritingFile(at path: String) -> String? {
        // Non-blocking: opening a FIFO without a reader fails rather than waits.
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0o644)
        if created >= 0 {
            defer {
                close(created)
                unlink(path)
            }
            return problemReservingRoom(in: created)
        }
        guard errno == EEXIST else { return problemOpening(path, errno) }
        let existing = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard existing >= 0 else { return reason(errno) }
        close(existing)
        return nil
    }

    /// Why a directory cannot be made (with its missing parents) or written into at `path`, or
    /// nil if it can. What the check makes, it removes.
    static func problemWritingDirectory(at path: String) -> String? {
        var made: [String] = []
        defer { for directory in made.reversed() { rmdir(directory) } }
        if let problem = makeDirectory(at: path, made: &made) { return problem }
        let probe = path + "/.steps-probe-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return reason(errno) }
        defer {
            close(descriptor)
            unlink(probe)
        }
        return problemReservingRoom(in: descriptor)
    }

    /// Makes the directory at `path` and its missing parents; the system's reason if it cannot
    /// (naming the part of the path that failed when it is not `path` itself), else nil.
    static func createDirectory(at path: String) -> String? {
        var made: [String] = []
        return makeDirectory(at: path, made: &made)
    }

    /// The system's reason for a failed write of Foundation's ("Permission denied", not
    /// "You don't have permission"), or its description if it holds no error number.
    static func reason(of error: any Error) -> String {
        var error = error as NSError
        while true {
            if error.domain == NSPOSIXErrorDomain { return reason(Int32(error.code)) }
            guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError else { break }
            error = underlying
        }
        return error.localizedDescription
    }

    /// The reason `open` gave (`code`), naming the directory `path` would be in when that is
    /// what is missing.
    private static func problemOpening(_ path: String, _ code: Int32) -> String {
        let directory = parent(of: path)
        var status = stat()
        guard code == ENOENT, stat(directory, &status) != 0 else { return reason(code) }
        return "\(directory): " + reason(errno)
    }

    /// Makes `path` and its missing parents, outermost first, appending each one made to `made`.
    private static func makeDirectory(at path: String, made: inout [String]) -> String? {
        var missing: [String] = []
        var existing = path
        var status = stat()
        while stat(existing, &status) != 0 {
            let code = errno
            let up = parent(of: existing)
            guard code == ENOENT, up != existing else { return named(existing, in: path) + reason(code) }
            missing.append(existing)
            existing = up
        }
        for directory in missing.reversed() {
            guard mkdir(directory, 0o777) == 0 else {
                if errno == EEXIST { continue }  // made meanwhile by someone else
                return named(directory, in: path) + reason(errno)
            }
            made.append(directory)
        }
        return nil
    }

    /// Why a byte cannot be written to the new, empty file open as `descriptor` (a full disk),
    /// or nil. Reserved rather than written, so that a disk that takes writes only to fail them
    /// later says so now.
    private static func problemReservingRoom(in descriptor: Int32) -> String? {
        let code = posix_fallocate(descriptor, 0, 1)
        // A file system that cannot reserve room says nothing about how much it has.
        guard code != 0, ![EOPNOTSUPP, ENOSYS, EINVAL, ENODEV, ESPIPE].contains(code) else { return nil }
        return reason(code)
    }

    /// "DIRECTORY: " when the failing part is not the whole path.
    private static func named(_ part: String, in path: String) -> String {
        part == path ? "" : "\(part): "
    }

    private static func parent(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        return parent.isEmpty ? "/" : parent
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
