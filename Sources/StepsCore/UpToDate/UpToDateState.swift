import Foundation

/// What the up-to-date check remembers between runs, in one file per pipeline file under
/// `.steps/` (`.steps/NAME.json.state`): the fingerprint of each step's last successful run,
/// and the content hash and stamp of each source file.
///
/// The format is lines of tab-separated fields, not JSON: a 10,000-file tree makes a
/// 10,000-line file, which this reads in a few milliseconds where corelibs' `JSONDecoder`
/// takes a good part of a second.
///
///     steps-state 1
///     step  NAME  COMMAND  ENV  CWD  SOURCES  NEEDS            (hashes in hex)
///     file  DEVICE  INODE  SIZE  MTIME  CTIME  HASH  VERIFIED  PATH
///
/// A path's `\`, tab and line breaks are escaped as `\\`, `\t`, `\n`, `\r`. It is written to
/// a temporary file that is then renamed over the old one, so a reader sees the old file or
/// the new one, never half of one.
struct UpToDateState: Sendable, Equatable {
    static let magic = "steps-state"
    static let version = 1

    var steps: [String: StepFingerprint] = [:]
    var files: [String: CachedFileHash] = [:]

    /// Why a state file was not used.
    struct Unusable: Error, Equatable {
        let reason: String
    }

    /// The state in `url`; an empty state if there is no file; `Unusable` if it is corrupt,
    /// of another version or cannot be read.
    static func load(from url: URL) throws(Unusable) -> UpToDateState {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return UpToDateState() }
            throw Unusable(reason: "cannot be read (\((error as NSError).localizedDescription))")
        }
        return try decode(Array(data))
    }

    /// Writes the state atomically (a temporary file in the same directory, then `rename`).
    func write(to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try Data(encoded()).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw Unusable(reason: "cannot be replaced (\(reason))")
        }
    }

    func encoded() -> [UInt8] {
        var text = "\(Self.magic) \(Self.version)\n"
        for (name, print) in steps.sorted(by: { $0.key < $1.key }) {
            text += "step\t\(name)\t\(print.command.hex16)\t\(print.environment.hex16)\t\(print.directory.hex16)\t\(print.sources.hex16)\t\(print.needs.hex16)\n"
        }
        for (path, entry) in files.sorted(by: { $0.key < $1.key }) {
            let stamp = entry.stamp
            text += "file\t\(stamp.device)\t\(stamp.inode)\t\(stamp.size)\t\(stamp.modified)\t\(stamp.changed)\t\(entry.hash.hex16)\t\(entry.verified)\t\(Self.escape(path))\n"
        }
        return Array(text.utf8)
    }

    static func decode(_ bytes: [UInt8]) throws(Unusable) -> UpToDateState {
        var state = UpToDateState()
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            lineNumber += 1
            let line = bytes[start..<end]
            start = end + 1
            if lineNumber == 1 {
                let header = String(decoding: line, as: UTF8.self)
                guard header.hasPrefix(magic + " ") else { throw Unusable(reason: "is not a steps state file") }
                guard header == "\(magic) \(version)" else {
                    throw Unusable(reason: "was written by another version of steps (\(header.dropFirst(magic.count + 1)), this one reads \(version))")
                }
                continue
            }
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            func bad() -> Unusable { Unusable(reason: "is corrupt (line \(lineNumber))") }
            switch String(decoding: fields.first ?? [], as: UTF8.self) {
            case "step":
                guard fields.count == 7 else { throw bad() }
                let hashes = fields[2...].map { hex($0) }
                guard !fields[1].isEmpty, !hashes.contains(nil) else { throw bad() }
                state.steps[String(decoding: fields[1], as: UTF8.self)] = StepFingerprint(
                    command: hashes[0]!, environment: hashes[1]!, directory: hashes[2]!, sources: hashes[3]!, needs: hashes[4]!)
            case "file":
                guard fields.count == 9, let device = decimal(fields[1]), let inode = decimal(fields[2]),
                    let size = signed(fields[3]), let modified = signed(fields[4]), let changed = signed(fields[5]),
                    let hash = hex(fields[6]), let verified = signed(fields[7]), let path = unescape(fields[8]), !path.isEmpty
                else { throw bad() }
                state.files[path] = CachedFileHash(
                    stamp: FileStamp(device: device, inode: inode, size: size, modified: modified, changed: changed),
                    hash: hash, verified: verified)
            default:
                throw bad()
            }
        }
        guard lineNumber > 0 else { throw Unusable(reason: "is empty") }
        return state
    }

    // MARK: - Fields

    private static func decimal(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    private static func signed(_ bytes: ArraySlice<UInt8>) -> Int64? {
        if bytes.first == UInt8(ascii: "-") {
            return decimal(bytes.dropFirst()).flatMap { $0 <= UInt64(Int64.max) ? -Int64($0) : nil }
        }
        return decimal(bytes).flatMap { $0 <= UInt64(Int64.max) ? Int64($0) : nil }
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard bytes.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    static func escape(_ path: String) -> String {
        guard path.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return path }
        var out = ""
        for character in path {
            switch character {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out
    }

    private static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        var escaped = false
        for byte in bytes {
            if escaped {
                switch byte {
                case UInt8(ascii: "\\"): out.append(byte)
                case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                default: return nil
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                out.append(byte)
            }
        }
        return escaped ? nil : String(decoding: out, as: UTF8.self)
    }
}
