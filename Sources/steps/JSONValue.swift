import Foundation

/// A JSON value and the byte offset in its document where it starts, so that whatever is
/// wrong with it can be reported with a line and column (see ``TextPositions``).
///
/// A tree of these is at most ``JSONParser/maximumDepth`` deep: the parser refuses deeper
/// nesting, so that neither building nor freeing a tree recurses further than that.
struct JSONValue: Sendable {
    enum Kind: Sendable {
        case object([Member])
        case array([JSONValue])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    /// A field of an object, in the order of the document.
    struct Member: Sendable {
        var key: String
        var value: JSONValue
    }

    var kind: Kind
    var offset: Int

    /// What the value is, as messages say it: "a string", "a list", "null"…
    var kindName: String {
        switch kind {
        case .object: return "an object"
        case .array: return "a list"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "true or false"
        case .null: return "null"
        }
    }

    /// The value of field `key`, if this is an object that has it.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The offset of the value at `path` (`["steps", "[2]", "timeout"]`), or of the nearest
    /// enclosing value that exists.
    func offset(of path: [String]) -> Int {
        var value = self
        for component in path {
            let next: JSONValue?
            if component.hasPrefix("["), component.hasSuffix("]"), let index = Int(component.dropFirst().dropLast()) {
                if case .array(let elements) = value.kind, elements.indices.contains(index) { next = elements[index] } else { next = nil }
            } else {
                next = value[component]
            }
            guard let next else { break }
            value = next
        }
        return value.offset
    }

    /// `["steps", "[2]", "timeout"]` becomes `steps[2].timeout`.
    static func join(_ path: [String]) -> String {
        var text = ""
        for component in path {
            if component.hasPrefix("[") || text.isEmpty { text += component } else { text += "." + component }
        }
        return text
    }
}

/// Turns byte offsets into 1-based lines and columns (columns count characters, not bytes).
struct TextPositions {
    /// A place in the document.
    struct Position: Equatable, CustomStringConvertible {
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
