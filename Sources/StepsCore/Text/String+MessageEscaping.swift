import Foundation

extension String {
    /// The text with every character that would break a one-line message or act on a terminal
    /// written as a Swift escape: `\n`, `\r`, `\t`, and `\u{1B}` for the other control
    /// characters (C0, DEL, C1), the line and paragraph separators and the bidirectional
    /// overrides. Everything else, a backslash included, is left as it is, so escaping twice
    /// changes nothing.
    var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: Self.needsEscape) else { return self }
        var text = ""
        text.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where Self.needsEscape(scalar): text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// Whether a message shows `scalar` escaped.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // control characters
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional marks and overrides
        default: return false
        }
    }
}
