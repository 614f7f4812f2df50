import Foundation

/// Reads a whole file, and when it cannot, says why in the system's words ("Is a directory",
/// "Permission denied"), which Foundation's `Data(contentsOf:)` does not.
enum FileReader {
    /// Why a file could not be read.
    struct Failure: Error, Equatable {
        var reason: String
    }

    /// The contents of the file at `path`, if it has at most `limit` bytes.
    static func contents(of path: String, limit: Int) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw systemFailure(errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw systemFailure(errno) }
        // Opening a directory succeeds; reading it fails with EISDIR, but say so before trying.
        if status.st_mode & S_IFMT == S_IFDIR { throw systemFailure(EISDIR) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemFailure(errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit { throw Failure(reason: "it is larger than \(limit >> 20) MiB, too large for a pipeline file") }
        }
    }

    private static func systemFailure(_ code: Int32) -> Failure {
        Failure(reason: String(cString: strerror(code)))
    }
}
