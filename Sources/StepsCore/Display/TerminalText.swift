import Foundation

/// What a step printed, made safe to show on a terminal: a step's bytes must not move the
/// cursor, change colours or break the live view's layout.
///
/// Every control character but tab (C0, DEL, and C1 such as U+009B, which some terminals take
/// as the start of an escape sequence) and every byte that is not part of valid UTF-8 is
/// shown as `\xNN`, its byte in hexadecimal: a colour code `ESC [31m` reads `\x1b[31m`, a
/// stray byte `FF` reads `\xff`. Everything else, non-ASCII text included, is shown as it is.
enum TerminalText {
    /// `bytes` (one line, without its newline) as text safe for a terminal.
    static func escaped(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        // Most lines are plain printable ASCII: they are shown as they are.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 }) { return String(decoding: bytes, as: UTF8.self) }
        var text = ""
        text.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length = sequenceLength(lead: byte)
            if length == 1 {
                if byte < 0x20 && byte != 0x09 || byte == 0x7F { text += hex(byte) } else { text.unicodeScalars.append(Unicode.Scalar(byte)) }
                index += 1
                continue
            }
            let end = index + length
            if length > 1, end <= bytes.count, let scalar = decode(bytes[index..<end]) {
                if (0x80...0x9F).contains(scalar.value) {
                    for byte in bytes[index..<end] { text += hex(byte) }
                } else {
                    text.unicodeScalars.append(scalar)
                }
                index = end
            } else {
                // Not UTF-8 here: this byte alone is escaped, and what follows is looked at anew.
                text += hex(byte)
                index += 1
            }
        }
        return text
    }

    /// How many bytes a UTF-8 sequence starting with `lead` has; 0 if it cannot start one.
    private static func sequenceLength(lead: UInt8) -> Int {
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 0
        }
    }

    /// The scalar `bytes` encode, if they are one well-formed UTF-8 sequence (not overlong,
    /// not a surrogate, not beyond U+10FFFF).
    private static func decode(_ bytes: ArraySlice<UInt8>) -> Unicode.Scalar? {
        guard let text = String(validating: bytes, as: UTF8.self), text.unicodeScalars.count == 1 else { return nil }
        return text.unicodeScalars.first
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
