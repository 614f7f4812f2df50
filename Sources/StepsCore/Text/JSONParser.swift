import Foundation

/// Reads a JSON document (RFC 8259) into a ``JSONValue`` tree, or says exactly what is wrong
/// and where.
///
/// Foundation's `JSONDecoder` reports some errors without a place ("not a valid JSON
/// document"), others as Swift values (`cannotConvertInputStringDataToUTF8(…)`), and it recurses
/// once per level of nesting. This parser uses a stack of its own, so its depth is bounded by
/// ``maximumDepth`` and not by the input; every error it throws carries the byte offset where
/// the problem is and a message written for the person who wrote the file.
struct JSONParser {
    /// The deepest nesting of lists and objects accepted. A pipeline needs four levels.
    static let maximumDepth = 100

    /// What is wrong with the text, and the byte offset where it is.
    struct Failure: Error, Equatable {
        var message: String
        var offset: Int
    }

    private let bytes: [UInt8]
    private var index = 0

    /// Parses a whole document: one value, surrounded only by whitespace.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Structure

    /// A list or an object whose elements are being read. It stays on the parser's stack while
    /// they are, and each element is appended to it in place there: taking it off the stack to
    /// append would copy every element read so far, once per element.
    private struct Open {
        var isObject: Bool
        var offset: Int
        var elements: [JSONValue] = []
        var members: [JSONValue.Member] = []
        /// The members' names, once there are too many to compare one by one.
        var keys: Set<String>?
        /// The name of the member being read (objects only).
        var key = ""

        /// Whether the object already has a member named `name`: a look at each member of a
        /// small object, a hash of the name in a large one.
        func has(_ name: String) -> Bool {
            keys?.contains(name) ?? members.contains { $0.key == name }
        }

        mutating func add(_ value: JSONValue) {
            members.append(JSONValue.Member(key: key, value: value))
            if keys != nil {
                keys!.insert(key)
            } else if members.count == 16 {
                keys = Set(members.map(\.key))
            }
        }
    }

    private mutating func document() throws(Failure) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a UTF-8 byte order mark
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw Failure(message: "the file is UTF-16 text; save it as UTF-8", offset: 0)
        }
        skipWhitespace()
        guard index < bytes.count else { throw failure("JSON syntax error: the file is empty") }
        let root = try value()
        skipWhitespace()
        guard index == bytes.count else { throw failure("JSON syntax error: unexpected \(describeCurrent()) after the end of the document") }
        return root
    }

    /// One value, with everything inside it: a loop over a stack of open lists and objects.
    private mutating func value() throws(Failure) -> JSONValue {
        var stack: [Open] = []
        while true {
            // Read the start of a value: a scalar is complete at once; a list or an object is
            // complete at once if it is empty, else it is opened and its first element is next.
            skipWhitespace()
            let start = index
            guard index < bytes.count else { throw failure("JSON syntax error: unexpected end of file, expected a value") }
            var complete: JSONValue
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                guard stack.count < Self.maximumDepth else {
                    throw failure("nesting deeper than \(Self.maximumDepth) levels (lists and objects inside each other)")
                }
                index += 1
                skipWhitespace()
                if index < bytes.count && bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    complete = JSONValue(kind: isObject ? .object([]) : .array([]), offset: start)
                } else if isObject {
                    stack.append(Open(isObject: true, offset: start, key: try fieldName(in: nil)))
                    continue
                } else {
                    stack.append(Open(isObject: false, offset: start))
                    continue
                }
            case UInt8(ascii: "\""): complete = JSONValue(kind: .string(try string()), offset: start)
            case UInt8(ascii: "t"): try literal("true"); complete = JSONValue(kind: .bool(true), offset: start)
            case UInt8(ascii: "f"): try literal("false"); complete = JSONValue(kind: .bool(false), offset: start)
            case UInt8(ascii: "n"): try literal("null"); complete = JSONValue(kind: .null, offset: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): complete = JSONValue(kind: .number(try number()), offset: start)
            default: throw failure("JSON syntax error: unexpected \(describeCurrent()), expected a value")
            }
            // Hand the complete value to the list or object it is in; close those that end here.
            while true {
                guard !stack.isEmpty else { return complete }
                let top = stack.count - 1
                skipWhitespace()
                let closing = stack[top].isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if stack[top].isObject {
                    stack[top].add(complete)
                } else {
                    stack[top].elements.append(complete)
                }
                guard index < bytes.count else {
                    throw failure("JSON syntax error: unexpected end of file, expected ',' or '\(Character(UnicodeScalar(closing)))'")
                }
                if bytes[index] == closing {
                    index += 1
                    let open = stack.removeLast()
                    complete = JSONValue(kind: open.isObject ? .object(open.members) : .array(open.elements), offset: open.offset)
                    continue
                }
                try comma(before: Character(UnicodeScalar(closing)))
                if stack[top].isObject {
                    let next = try fieldName(in: stack[top])
                    stack[top].key = next
                }
                break
            }
        }
    }

    /// The ',' between two elements (not before the closing `bracket`).
    private mutating func comma(before bracket: Character) throws(Failure) {
        guard bytes[index] == UInt8(ascii: ",") else {
            throw failure("JSON syntax error: unexpected \(describeCurrent()), expected ',' or '\(bracket)'")
        }
        index += 1
        skipWhitespace()
        if index < bytes.count && Character(UnicodeScalar(bytes[index])) == bracket {
            throw failure("JSON syntax error: unexpected '\(bracket)' after ',' (trailing commas are not allowed)")
        }
    }

    /// A field name and its ':'; a name already used in the same object is an error (the
    /// decoder would silently keep one of the two values).
    private mutating func fieldName(in object: Open?) throws(Failure) -> String {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw failure("JSON syntax error: unexpected \(describeCurrent()), expected a field name in double quotes")
        }
        let start = index
        let key = try string()
        guard !(object?.has(key) ?? false) else {
            throw Failure(message: "JSON syntax error: the field \"\(key)\" appears twice in the same object", offset: start)
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw failure("JSON syntax error: unexpected \(describeCurrent()), expected ':' after the field name \"\(key)\"")
        }
        index += 1
        return key
    }

    // MARK: - Scalars

    private mutating func literal(_ word: String) throws(Failure) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw failure("JSON syntax error: unexpected \(describeCurrent()), expected a value (strings need double quotes)")
        }
        index += expected.count
    }

    private mutating func number() throws(Failure) -> Double {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index - first
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("JSON syntax error: invalid number: expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("JSON syntax error: invalid number: leading zeros are not allowed") }
        } else {
            _ = digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("JSON syntax error: invalid number: expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("JSON syntax error: invalid number: expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            let shown = text.count > 40 ? text.prefix(20) + "…" + text.suffix(10) : Substring(text)
            throw Failure(message: "number out of range: \(shown) is beyond the largest number a pipeline can hold (about 1.8e308)", offset: start)
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// A string, its escapes decoded. Its bytes must be UTF-8, and a `\u` escape of half a
    /// UTF-16 surrogate pair must be followed by the other half.
    private mutating func string() throws(Failure) -> String {
        let start = index
        index += 1  // the opening quote
        var decoded: [UInt8] = []
        var plainFrom = index  // raw bytes not yet copied into `decoded`
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                // Without escapes (nothing copied yet), the string is its bytes as they are.
                let text = plainFrom == start + 1
                    ? String(decoding: bytes[plainFrom..<index], as: UTF8.self)
                    : String(decoding: decoded + bytes[plainFrom..<index], as: UTF8.self)
                index += 1
                return text
            case UInt8(ascii: "\\"):
                decoded += bytes[plainFrom..<index]
                try escape(into: &decoded)
                plainFrom = index
            case 0..<0x20:
                throw failure(byte == UInt8(ascii: "\n")
                    ? "JSON syntax error: unterminated string (a line break inside a string must be written \\n)"
                    : "JSON syntax error: control character in a string (escape it)")
            case 0x20..<0x80:
                index += 1
            default:
                guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
                    throw failure(String(format: "the text is not valid UTF-8 (byte 0x%02X); save the file as UTF-8", bytes[index]))
                }
                index += length
            }
        }
        throw Failure(message: "JSON syntax error: unterminated string", offset: start)
    }

    /// `\n` and the like: the byte each stands for.
    private static let simpleEscapes: [UInt8: UInt8] = [
        UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
        UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
    ]

    /// The escape at `index` (a backslash), decoded and appended as UTF-8.
    private mutating func escape(into decoded: inout [UInt8]) throws(Failure) {
        let start = index
        index += 1
        guard index < bytes.count else { throw Failure(message: "JSON syntax error: unterminated string", offset: start) }
        if let byte = Self.simpleEscapes[bytes[index]] {
            decoded.append(byte)
            index += 1
            return
        }
        guard bytes[index] == UInt8(ascii: "u") else {
            throw failure("JSON syntax error: invalid escape '\\\(describeCurrent().trimmingCharacters(in: ["'"]))' in a string")
        }
        let unit = try hexUnit()
        var scalar = UInt32(unit)
        switch unit {
        case 0xD800...0xDBFF:
            // The first half of a pair: the second must follow at once.
            var low: UInt16?
            if index + 1 < bytes.count && bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u") {
                index += 1
                low = try hexUnit()
            }
            guard let low, (0xDC00...0xDFFF).contains(low) else {
                throw Failure(message: "JSON syntax error: \\u\(hex(unit)) is the first half of a UTF-16 surrogate pair, but no second half (\\udc00 to \\udfff) follows it", offset: start)
            }
            scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw Failure(message: "JSON syntax error: \\u\(hex(unit)) is the second half of a UTF-16 surrogate pair, but no first half (\\ud800 to \\udbff) comes before it", offset: start)
        default:
            break
        }
        decoded += Array(String(Character(UnicodeScalar(scalar)!)).utf8)
    }

    /// The four hexadecimal digits after `\u` (`index` is at the `u`).
    private mutating func hexUnit() throws(Failure) -> UInt16 {
        index += 1
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexValue(bytes[index]) else {
                throw failure("JSON syntax error: invalid \\u escape in a string: expected four hexadecimal digits")
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private func hex(_ unit: UInt16) -> String { String(format: "%04x", unit) }

    // MARK: - Errors and whitespace

    private func failure(_ message: String) -> Failure {
        Failure(message: message, offset: index)
    }

    /// The byte at `index` as a message shows it: `'x'`, `'é'`, or `byte 0xFF (not UTF-8)`.
    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        if byte >= 0x80 {
            guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
                return String(format: "byte 0x%02X (the text is not valid UTF-8)", byte)
            }
            return "'\(String(decoding: bytes[index..<index + length], as: UTF8.self))'"
        }
        return String(format: "byte 0x%02X", byte)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): index += 1
            default: return
            }
        }
    }
}
