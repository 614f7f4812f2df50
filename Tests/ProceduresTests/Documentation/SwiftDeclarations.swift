import Foundation

/// Enum cases and mutating functions read from Swift source, by brace depth: only what is
/// declared directly in a type's body counts (not a `case` of a `switch` in one of its
/// methods, nor a nested type's cases), with comments and string literals left out.
struct SwiftDeclarations {
    struct Failure: Error { var message: String }

    /// The source with comments and string literals blanked (so that braces and keywords in
    /// them count for nothing).
    private let code: [Character]

    init(_ source: String) {
        var out: [Character] = []
        let characters = Array(source)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "/", next == "/" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", next == "*" {
                index += 2
                while index + 1 < characters.count, !(characters[index] == "*" && characters[index + 1] == "/") { index += 1 }
                index += 2
            } else if character == "\"" {
                out.append("\"")
                index += 1
                while index < characters.count, characters[index] != "\"", characters[index] != "\n" {
                    if characters[index] == "\\" { index += 1 }
                    index += 1
                }
                out.append("\"")
                index += 1
            } else {
                out.append(character)
                index += 1
            }
        }
        code = out
    }

    /// The cases of the enum at `path` (type names from the outside in), in declaration order.
    func cases(ofEnum path: String) -> Result<[String], Failure> {
        body(of: path, kind: "enum").map { body in
            statements(atTopOf: body).flatMap { statement -> [String] in
                var words = statement.split(whereSeparator: \.isWhitespace)
                while let first = words.first, first.hasPrefix("@") || first == "indirect" { words.removeFirst() }
                guard words.first == "case" else { return [] }
                let list = statement[statement.range(of: "case")!.upperBound...]
                return Self.splitAtTopLevelCommas(String(list)).compactMap(Self.leadingIdentifier)
            }
        }
    }

    /// The names of the `mutating func`s declared in the body of the type at `path` and of its
    /// extensions in the file, not private ones, in declaration order.
    func mutatingFunctions(of path: String) -> Result<[String], Failure> {
        body(of: path, kind: nil, joiningExtensions: true).map { body in
            statements(atTopOf: body).compactMap { statement -> String? in
                let words = statement.split(whereSeparator: \.isWhitespace)
                guard let at = words.firstIndex(of: "mutating"), at + 2 < words.count, words[at + 1] == "func",
                    !words[..<at].contains(where: { $0.hasPrefix("private") || $0.hasPrefix("fileprivate") })
                else { return nil }
                return Self.leadingIdentifier(String(words[at + 2]))
            }
        }
    }

    /// The text between the braces of the type at `path`: each name of the path is looked for
    /// inside the body found for the one before (the whole file for the first), at any depth.
    /// `joiningExtensions`: the last one's declaration and its extensions read as one body.
    private func body(of path: String, kind: String?, joiningExtensions: Bool = false) -> Result<[Character], Failure> {
        var scope = code[...]
        let names = path.split(separator: ".").map(String.init)
        for (position, name) in names.enumerated() {
            let isLast = position == names.count - 1
            let found = declarations(named: name, in: scope, kind: isLast ? kind : nil)
            if isLast, joiningExtensions, found.count > 1 {
                return .success(found.flatMap { Array($0) + ["\n"] })
            }
            guard found.count == 1 else {
                let what = isLast ? (kind ?? "type") : "type"
                return .failure(Failure(message: found.isEmpty
                    ? "no \(what) named \(name) (looking for \(path))"
                    : "\(found.count) types named \(name): name the one meant by its enclosing type (looking for \(path))"))
            }
            scope = found[0]
        }
        return .success(Array(scope))
    }

    /// The bodies of the types called `name` declared in `scope` (of `kind`: `enum`, or any).
    private func declarations(named name: String, in scope: ArraySlice<Character>, kind: String?) -> [ArraySlice<Character>] {
        let keywords = kind.map { [$0] } ?? ["enum", "struct", "class", "extension", "actor"]
        var bodies: [ArraySlice<Character>] = []
        var index = scope.startIndex
        while index < scope.endIndex {
            guard Self.isWordStart(scope, at: index),
                let keyword = keywords.first(where: { Self.word($0, isAt: index, in: scope) })
            else {
                index += 1
                continue
            }
            var cursor = index + keyword.count
            while cursor < scope.endIndex, scope[cursor].isWhitespace { cursor += 1 }
            guard Self.word(name, isAt: cursor, in: scope) else {
                index = cursor
                continue
            }
            guard let open = scope[cursor...].firstIndex(of: "{") else { break }
            var depth = 0
            var close = open
            for position in open..<scope.endIndex {
                if scope[position] == "{" { depth += 1 }
                if scope[position] == "}" { depth -= 1 }
                if depth == 0 {
                    close = position
                    break
                }
            }
            // A type named after a keyword of the language, say, never comes here unclosed.
            guard close > open else { break }
            bodies.append(scope[(open + 1)..<close])
            index = close
        }
        return bodies
    }

    /// The statements at the top level of a body (nested braces left out), split at line
    /// ends outside parentheses and at semicolons.
    private func statements(atTopOf body: [Character]) -> [String] {
        var statements: [String] = []
        var current = ""
        var depth = 0
        var parentheses = 0
        for character in body {
            switch character {
            case "{":
                depth += 1
            case "}":
                depth -= 1
            case "\n" where parentheses > 0:
                if depth == 0 { current.append(" ") }
            case "\n", ";":
                if depth == 0 {
                    statements.append(current)
                    current = ""
                }
            default:
                if character == "(" { parentheses += 1 }
                if character == ")" { parentheses -= 1 }
                if depth == 0 { current.append(character) }
            }
        }
        statements.append(current)
        return statements.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func splitAtTopLevelCommas(_ list: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in list {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]", ">": depth -= 1
            default: break
            }
            if character == ",", depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// The identifier a declaration starts with (backquotes dropped), if any.
    private static func leadingIdentifier(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let unquoted = trimmed.hasPrefix("`") ? String(trimmed.dropFirst()) : trimmed
        let name = unquoted.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    private static func isWordStart(_ text: ArraySlice<Character>, at index: Int) -> Bool {
        index == text.startIndex || !(text[index - 1].isLetter || text[index - 1].isNumber || text[index - 1] == "_")
    }

    private static func word(_ word: String, isAt index: Int, in text: ArraySlice<Character>) -> Bool {
        var position = index
        for character in word {
            guard position < text.endIndex, text[position] == character else { return false }
            position += 1
        }
        return position == text.endIndex || !(text[position].isLetter || text[position].isNumber || text[position] == "_")
    }
}
