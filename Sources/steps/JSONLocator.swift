import Foundation

/// A pre-pass over a JSON document that Foundation's `JSONDecoder` is about to decode.
///
/// On Linux the decoder reports a syntax error as "not valid JSON", without saying where, and
/// a type error by its coding path only. This scanner checks the syntax itself, so that a
/// syntax error can be reported with its line and column, and it remembers where each value
/// starts, so that a schema error (found by the decoder, by its coding path) can be pointed at
/// too. It is a checker, not a parser: the document is still decoded by `JSONDecoder`.
struct JSONLocator {
    /// A place in the document: 1-based line and column (the column counts characters).
    struct Position: Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        var description: String { "\(line):\(column)" }
    }

    /// A syntax error and where it is.
    struct SyntaxError: Error, Equatable {
        var message: String
        var position: Position
    }

    /// The byte offset where each value starts, by its path (`steps[2].timeout`; the
    /// document itself is ""). Offsets become positions only when an error is reported, so
    /// that scanning stays linear even in a file written on one line.
    private var offsets: [String: Int] = [:]

    private let bytes: [UInt8]
    private var index = 0
    private var lineStarts = [0]

    /// Scans `data`; throws the first syntax error found.
    init(scanning data: Data) throws(SyntaxError) {
        bytes = Array(data)
        // A UTF-8 byte order mark is allowed by JSONDecoder; skip it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStarts = [3] }
        skipWhitespace()
        guard index < bytes.count else { throw error("the file is empty") }
        try value(at: "")
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describeCurrent()) after the end of the document") }
    }

    /// The position of the value at `path`, or of its nearest enclosing value that was seen.
    func position(of path: [String]) -> Position? {
        var path = path
        while true {
            if let found = offsets[Self.join(path)] { return position(at: found) }
            if path.isEmpty { return nil }
            path.removeLast()
        }
    }

    /// The first character of the value at `path` (`"`, `{`, `[`, `t`, a digit…), if it was seen.
    func firstCharacter(at path: [String]) -> Character? {
        guard let offset = offsets[Self.join(path)], offset < bytes.count else { return nil }
        return Character(UnicodeScalar(bytes[offset]))
    }

    /// `["steps", "[2]", "timeout"]` becomes `steps[2].timeout`.
    static func join(_ path: [String]) -> String {
        var text = ""
        for component in path {
            if component.hasPrefix("[") || text.isEmpty { text += component } else { text += "." + component }
        }
        return text
    }

    // MARK: - Scanning

    private var current: Position { position(at: index) }

    /// Lines are known up to the scanning point, which is as far as any offset asked for.
    private func position(at offset: Int) -> Position {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        // Count characters, not bytes: UTF-8 continuation bytes do not start a character.
        var column = 1
        var at = lineStarts[low]
        while at < offset && at < bytes.count {
            if bytes[at] & 0xC0 != 0x80 { column += 1 }
            at += 1
        }
        return Position(line: low + 1, column: column)
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(message: message, position: current)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "\n"):
                index += 1
                lineStarts.append(index)
            default:
                return
            }
        }
    }

    private mutating func value(at path: String) throws(SyntaxError) {
        skipWhitespace()
        offsets[path] = index
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(at: path)
        case UInt8(ascii: "["): try array(at: path)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func object(at path: String) throws(SyntaxError) {
        index += 1  // {
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return }
        var keys: Set<String> = []
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()), expected a field name in double quotes")
            }
            let keyStart = index
            let key = try string()
            // The decoder would silently keep one of the two values.
            guard keys.insert(key).inserted else {
                throw SyntaxError(message: "the field \"\(key)\" appears twice in the same object", position: position(at: keyStart))
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()), expected ':' after the field name \"\(key)\"")
            }
            index += 1
            try value(at: path.isEmpty ? key : path + "." + key)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file, expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            guard bytes[index] == UInt8(ascii: ",") else {
                throw error("unexpected \(describeCurrent()), expected ',' or '}'")
            }
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                throw error("unexpected '}' after ',' (trailing commas are not allowed)")
            }
        }
    }

    private mutating func array(at path: String) throws(SyntaxError) {
        index += 1  // [
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return }
        var element = 0
        while true {
            try value(at: path + "[\(element)]")
            element += 1
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file, expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return }
            guard bytes[index] == UInt8(ascii: ",") else {
                throw error("unexpected \(describeCurrent()), expected ',' or ']'")
            }
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                throw error("unexpected ']' after ',' (trailing commas are not allowed)")
            }
        }
    }

    /// Scans a string and returns its raw contents (escapes left as written: only keys use it).
    private mutating func string() throws(SyntaxError) -> String {
        let start = index  // an offset: positions are computed only for an error
        index += 1  // opening quote
        let contentStart = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text = String(decoding: bytes[contentStart..<index], as: UTF8.self)
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    for _ in 0..<4 {
                        guard index < bytes.count, isHexDigit(bytes[index]) else {
                            throw error("invalid \\u escape in a string: expected four hexadecimal digits")
                        }
                        index += 1
                    }
                default:
                    throw error("invalid escape '\\\(describeCurrent().trimmingCharacters(in: ["'"]))' in a string")
                }
            case 0..<0x20:
                throw error(byte == UInt8(ascii: "\n")
                    ? "unterminated string (a line break inside a string must be written \\n)"
                    : "control character in a string (escape it)")
            default:
                index += 1
            }
        }
        throw SyntaxError(message: "unterminated string", position: position(at: start))
    }

    private func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private mutating func literal(_ word: String) throws(SyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("unexpected \(describeCurrent()), expected a value (strings need double quotes)")
        }
        index += expected.count
    }

    private mutating func number() throws(SyntaxError) {
        func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw error("invalid number: expected a digit")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                throw error("invalid number: leading zeros are not allowed")
            }
        } else {
            _ = digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("invalid number: expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("invalid number: expected a digit in the exponent") }
        }
    }
}
