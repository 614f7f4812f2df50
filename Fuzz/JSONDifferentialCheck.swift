import Foundation

/// The parser against Foundation's `JSONSerialization` on the same bytes: a document the
/// parser accepts must be accepted by Foundation with the same values, and a syntax error the
/// parser reports must be one Foundation finds too, except where the parser keeps to RFC 8259
/// and Foundation does not: a field named twice (Foundation keeps one value), a trailing comma
/// (Foundation accepts it), and text with zero bytes (Foundation takes it for UTF-16 or UTF-32).
enum JSONDifferentialCheck {
    static func check(_ data: Data) {
        let foundation = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        do {
            let value = try JSONParser.parse([UInt8](data))
            guard let foundation else { fatalError("accepted, but JSONSerialization refuses it") }
            if let difference = compare(value, foundation, at: "$") { fatalError("a different value than JSONSerialization's: \(difference)") }
        } catch {
            let stricter = ["appears twice", "trailing commas"].contains { error.message.contains($0) }
            if foundation != nil && error.message.hasPrefix("JSON syntax error") && !stricter && !data.contains(0) {
                fatalError("refused (\(error.message)), but JSONSerialization accepts it")
            }
        }
    }

    /// Where the two values differ, or nil.
    private static func compare(_ value: JSONValue, _ other: Any, at path: String) -> String? {
        switch value.kind {
        case .object(let members):
            guard let other = other as? [String: Any], other.count == members.count else { return "\(path): not the same object" }
            for member in members {
                guard let theirs = other[member.key] else { return "\(path): no field \(member.key)" }
                if let difference = compare(member.value, theirs, at: path + "." + member.key) { return difference }
            }
        case .array(let elements):
            guard let other = other as? [Any], other.count == elements.count else { return "\(path): not the same list" }
            for (index, element) in elements.enumerated() {
                if let difference = compare(element, other[index], at: path + "[\(index)]") { return difference }
            }
        case .string(let text):
            guard let other = other as? String, other == text else { return "\(path): \(text.debugDescription) vs \(other)" }
        case .number(let number):
            guard let other = (other as? NSNumber)?.doubleValue,
                number == other || abs(number - other) <= 1e-12 * max(abs(number), abs(other))
            else { return "\(path): \(number) vs \(other)" }
        case .bool(let flag):
            guard let other = other as? Bool, other == flag else { return "\(path): \(flag) vs \(other)" }
        case .null:
            guard other is NSNull else { return "\(path): null vs \(other)" }
        }
        return nil
    }
}
