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
