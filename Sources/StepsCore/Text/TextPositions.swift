import Foundation

/// Turns byte offsets into 1-based lines and columns (columns count characters, not bytes).
struct TextPositions: Sendable {
    /// A place in the document.
    struct Position: Equatable, Sendable, CustomStringConvertible {
        var line: Int
        var column: Int
        var description: String { "\(line):\(column)" }
    }

    private let bytes: [UInt8]
    private let lineStarts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // A byte order mark does not count as a column.
        var starts = [bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        lineStarts = starts
    }

    func position(of offset: Int) -> Position {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        // UTF-8 continuation bytes do not start a character.
        var column = 1
        var at = lineStarts[low]
        while at < offset && at < bytes.count {
            if bytes[at] & 0xC0 != 0x80 { column += 1 }
            at += 1
        }
        return Position(line: low + 1, column: column)
    }

    /// The positions of many offsets in one pass over the text: linear however many there are,
    /// even in a document written on one long line.
    func positions(of offsets: [Int]) -> [Int: Position] {
        var result: [Int: Position] = [:]
        var line = 0
        var column = 1
        var at = lineStarts[0]
        for offset in Set(offsets).sorted() {
            while line + 1 < lineStarts.count && lineStarts[line + 1] <= offset {
                line += 1
                column = 1
                at = lineStarts[line]
            }
            while at < offset && at < bytes.count {
                if bytes[at] & 0xC0 != 0x80 { column += 1 }
                at += 1
            }
            result[offset] = Position(line: line + 1, column: column)
        }
        return result
    }
}
