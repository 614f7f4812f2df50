import Foundation
import Procedures

/// What the demo learns about one file.
struct FileStats: Sendable {
    let path: String
    let lines: Int
    let words: Int
    let bytes: Int
    /// 64-bit FNV-1a of the contents.
    let checksum: UInt64

    init(path: String, contents: Data) {
        var lines = 0
        var words = 0
        var inWord = false
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in contents {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            if byte == UInt8(ascii: "\n") { lines += 1 }
            let isSpace = byte == 32 || (9...13).contains(byte)
            if !isSpace && !inWord { words += 1 }
            inWord = !isSpace
        }
        self.path = path
        self.lines = lines
        self.words = words
        self.bytes = contents.count
        self.checksum = hash
    }
}

/// Reads one file and measures it.
final class FileStatsProcedure: ResultProcedure<FileStats>, @unchecked Sendable {
    // @unchecked: `path` is immutable.
    let path: String

    init(path: String) {
        self.path = path
        super.init()
        name = "stats(\(path))"
    }

    override func execute() {
        do {
            let contents = try Data(contentsOf: URL(fileURLWithPath: path))
            finish(withOutput: FileStats(path: path, contents: contents))
        } catch {
            finish(withError: error)
        }
    }
}
