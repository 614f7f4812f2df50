import Foundation
import XCTest

/// Keeps the state machines' tables in Documentation/Internals.md true to the code: each
/// machine listed in `machines` has a section there, and in it a table per enum whose header
/// names the enum (`| \`Stage\` | … |`) and whose first column lists exactly that enum's cases,
/// and, for a machine type, a table headed `event` whose first column names every one of its
/// `mutating func`s that is not private. A case or event added, renamed or removed in the
/// source fails here, named, until the document says it too.
final class InternalsTablesTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One machine: where its source is, which of its enums and event-taking types the
    /// document must list, and the heading of its section in Internals.md. An enum is named
    /// by its path of type names in the file (`ExclusivityRequest.Status`), or by its name
    /// alone when the file declares one enum of that name.
    struct Machine {
        var source: String
        var enums: [String]
        var eventsOf: [String] = []
        var section: String
    }

    static let machines: [Machine] = [
        Machine(
            source: "Sources/Procedures/Procedure/ProcedureLifecycle.swift",
            enums: [
                "ReadyAction", "ClaimOutcome", "CancelDecision", "FinishDecision", "SlotGrant", "SlotRelease", "SlotRequest",
                "ExecuteDecision", "FinishStep",
            ],
            eventsOf: ["ProcedureLifecycle"], section: "The lifecycle state machine"),
        Machine(
            source: "Sources/Procedures/Procedure/ProcedureLifecycle+Stage.swift", enums: ["Stage", "Slot"],
            section: "The lifecycle state machine"),
        Machine(
            source: "Sources/Procedures/Procedure/ProcedureLifecycle+Queries.swift", enums: ["StartDecision"],
            section: "The lifecycle state machine"),
        Machine(
            source: "Sources/Procedures/Procedure/ProcedurePhase.swift", enums: ["ProcedurePhase", "CancellationPhase"],
            section: "The lifecycle state machine"),
        Machine(
            source: "Sources/Procedures/Procedure/ProcedureEvent.swift", enums: ["ProcedureEvent"],
            section: "A procedure's event mailbox: callbacks never overlap"),
        Machine(
            source: "Sources/Procedures/Queue/SchedulerStateMachine.swift",
            enums: ["HolderSlot", "Linger", "Action", "Step"], eventsOf: ["SchedulerStateMachine"],
            section: "The scheduler's state machine"),
        Machine(
            source: "Sources/Procedures/Procedure/GateStage.swift", enums: ["GateStage"],
            section: "The condition gate"),
        Machine(
            source: "Sources/Procedures/Conditions/ConditionGate.swift", enums: ["Waiting"],
            section: "The condition gate"),
        Machine(
            source: "Sources/Procedures/Conditions/ConditionGateStateMachine.swift",
            enums: ["State", "Answer", "AnswerAction"], eventsOf: ["ConditionGateStateMachine"],
            section: "The condition gate"),
        Machine(
            source: "Sources/Procedures/Conditions/ExclusivityManager.swift",
            enums: ["ExclusivityRequest.Status", "StartClaim"],
            section: "Categories and slots: give back while waiting"),
        Machine(
            source: "Sources/Procedures/Conditions/ExclusivityState.swift", enums: [], eventsOf: ["ExclusivityState"],
            section: "Categories and slots: give back while waiting"),
        Machine(
            source: "Sources/Procedures/Procedure/WaitForGraph.swift", enums: ["WaitEdge.Kind"],
            section: "The wait-for graph"),
        Machine(
            source: "Sources/Procedures/BuiltIn/GroupProcedureState.swift", enums: ["Phase", "QueueSuspension"],
            section: "Groups"),
        Machine(
            source: "Sources/Procedures/Progress/ProgressTracker.swift", enums: ["Mode", "Stage"],
            section: "Progress"),
        Machine(
            source: "Sources/ProceduresFutures/Futures/FutureState.swift",
            enums: ["Phase", "Upstream", "Disposal"], eventsOf: ["FutureState"],
            section: "Futures: the tree rule, by voting"),
        Machine(
            source: "Sources/ProceduresFutures/Futures/CancelVoting.swift", enums: ["CancelVote"],
            section: "Futures: the tree rule, by voting"),
    ]

    func testEveryMachinesCasesAndEventsAreInItsTables() throws {
        let document = try String(
            contentsOf: root.appendingPathComponent("Documentation/Internals.md"), encoding: .utf8)
        var checked = 0
        for machine in Self.machines {
            let source = try String(contentsOf: root.appendingPathComponent(machine.source), encoding: .utf8)
            let problems = Self.problems(of: machine, source: source, document: document, checked: &checked)
            for problem in problems { XCTFail(problem) }
        }
        XCTAssertGreaterThan(checked, 60, "expected the machines to have many cases and events between them")
    }

    /// What the document gets wrong about `machine`, one message each; `checked` counts the
    /// cases and events compared.
    static func problems(of machine: Machine, source: String, document: String, checked: inout Int) -> [String] {
        guard let section = InternalsSection(heading: machine.section, in: document) else {
            return ["Internals.md has no section \"\(machine.section)\" (for \(machine.source))"]
        }
        var problems: [String] = []
        let code = SwiftDeclarations(source)
        for name in machine.enums {
            let cases: [String]
            switch code.cases(ofEnum: name) {
            case .success(let found): cases = found
            case .failure(let error):
                problems.append("\(machine.source): \(error.message)")
                continue
            }
            checked += cases.count
            let shortName = String(name.split(separator: ".").last!)
            guard let listed = section.firstColumn(ofTableHeaded: shortName) else {
                problems.append(
                    "Internals.md, \"\(machine.section)\": no table headed `\(shortName)` listing the cases of \(name) (\(machine.source)): \(cases.joined(separator: ", "))")
                continue
            }
            for missing in cases where !listed.contains(missing) {
                problems.append(
                    "Internals.md, \"\(machine.section)\": case `\(missing)` of \(name) (\(machine.source)) is missing from its table")
            }
            for extra in listed where !cases.contains(extra) {
                problems.append(
                    "Internals.md, \"\(machine.section)\": the table of \(name) lists `\(extra)`, which \(machine.source) does not declare")
            }
        }
        for type in machine.eventsOf {
            let events: [String]
            switch code.mutatingFunctions(of: type) {
            case .success(let found): events = found
            case .failure(let error):
                problems.append("\(machine.source): \(error.message)")
                continue
            }
            checked += events.count
            let listed = section.firstColumns(ofTablesHeaded: "event")
            if listed.isEmpty {
                problems.append("Internals.md, \"\(machine.section)\": no table headed `event` listing the events of \(type)")
                continue
            }
            for missing in events where !listed.contains(missing) {
                problems.append(
                    "Internals.md, \"\(machine.section)\": event `\(missing)` of \(type) (\(machine.source)) is missing from its events table")
            }
        }
        return problems
    }

    // MARK: - The check checked

    private static let sampleSource = """
        /// A comment that mentions case notAnEnumCase and enum Nope.
        struct Machine {
            enum State: Equatable {
                case idle, waiting(count: Int)  // case alsoNotACase
                /* case notThisEither */
                case running(Running,
                             since: UInt64), `default`
                indirect case nested(State)
                case done
                var isDone: Bool {
                    switch self {
                    case .done: return true
                    case .idle, .waiting, .running, .default, .nested: return false
                    }
                }
                struct Running { enum Inner { case deep } }
            }
            enum Action { case none; case start(String = "case fake") }
            mutating func start() -> Action { .none }
            @inline(__always) mutating func stop(now: @autoclosure () -> UInt64) {}
            private mutating func helper() {}
            func query() -> Bool { true }
        }
        enum Other { enum State { case elsewhere } }
        """

    func testTheParserFindsEveryCaseAndEventOfASample() {
        let code = SwiftDeclarations(Self.sampleSource)
        XCTAssertEqual(try code.cases(ofEnum: "Machine.State").get(), ["idle", "waiting", "running", "default", "nested", "done"])
        XCTAssertEqual(try code.cases(ofEnum: "Action").get(), ["none", "start"])
        XCTAssertEqual(try code.cases(ofEnum: "Inner").get(), ["deep"])
        XCTAssertEqual(try code.cases(ofEnum: "Other.State").get(), ["elsewhere"])
        XCTAssertEqual(try code.mutatingFunctions(of: "Machine").get(), ["start", "stop"])
        // Two enums named State: the bare name is ambiguous, and says so.
        XCTAssertThrowsError(try code.cases(ofEnum: "State").get())
        XCTAssertThrowsError(try code.cases(ofEnum: "Missing").get())
    }

    func testTheCheckNamesEveryCaseMissingFromATableAndEveryCaseItNoLongerHas() {
        let document = """
            # Title

            ## The machine

            | `State` | meaning |
            |---|---|
            | `idle` | nothing |
            | `waiting(count:)` | waits |
            | `running(_:since:)`, `default` | runs |
            | `gone` | no longer in the code |

            | event | returns |
            |---|---|
            | `start()` | an action |

            | `Action` | |
            |---|---|
            | `none`, `start(_:)` | |

            ## Another section

            | `Other` | |
            |---|---|
            | `nested` | in the wrong section |
            | `done` | in the wrong section |
            """
        let machine = Machine(source: "Sample.swift", enums: ["Machine.State", "Action"], eventsOf: ["Machine"], section: "The machine")
        var checked = 0
        let problems = Self.problems(of: machine, source: Self.sampleSource, document: document, checked: &checked)
        XCTAssertEqual(checked, 10)
        XCTAssertEqual(problems.count, 4, problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains { $0.contains("case `nested` of Machine.State") }, problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains { $0.contains("case `done` of Machine.State") }, problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains { $0.contains("lists `gone`") }, problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains { $0.contains("event `stop` of Machine") }, problems.joined(separator: "\n"))

        let elsewhere = Machine(source: "Sample.swift", enums: ["Action"], section: "No such section")
        XCTAssertEqual(Self.problems(of: elsewhere, source: Self.sampleSource, document: document, checked: &checked).count, 1)
    }
}

/// A section of a Markdown document: from its heading to the next heading of the same or a
/// higher level, with the tables in it.
struct InternalsSection {
    /// Each table's header cells and its rows' first cells.
    private(set) var tables: [(header: [String], firstCells: [String])] = []

    init?(heading: String, in markdown: String) {
        var level: Int?
        var current: (header: [String], firstCells: [String])?
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") { inCode.toggle() }
            if !inCode, trimmed.hasPrefix("#") {
                let hashes = trimmed.prefix { $0 == "#" }.count
                let title = trimmed.dropFirst(hashes).trimmingCharacters(in: .whitespaces)
                if let open = level {
                    if hashes <= open { break }
                } else if title == heading {
                    level = hashes
                    continue
                }
            }
            guard level != nil, !inCode else { continue }
            guard trimmed.hasPrefix("|") else {
                if let table = current { tables.append(table) }
                current = nil
                continue
            }
            let cells = Self.cells(of: trimmed)
            if current == nil {
                current = (cells, [])
            } else if !cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) {
                current?.firstCells.append(cells.first ?? "")
            }
        }
        guard level != nil else { return nil }
        if let table = current { tables.append(table) }
    }

    /// The names in the first column of the table whose first header cell is `` `name` ``.
    func firstColumn(ofTableHeaded name: String) -> [String]? {
        guard let table = tables.first(where: { $0.header.first == "`\(name)`" }) else { return nil }
        return table.firstCells.flatMap(Self.names)
    }

    /// The names in the first column of every table whose first header cell is `title`.
    func firstColumns(ofTablesHeaded title: String) -> [String] {
        tables.filter { $0.header.first == title }.flatMap { $0.firstCells.flatMap(Self.names) }
    }

    /// A row's cells, split at `|` (not at an escaped `\|`).
    private static func cells(of row: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var previous: Character?
        for character in row.dropFirst() {
            if character == "|", previous != "\\" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
            previous = character
        }
        return cells
    }

    /// The name each code span of `cell` starts with: `` `waiting(count:)` `` names `waiting`,
    /// `` `Step.run(_:)` `` and `` `.run` `` name `run`.
    static func names(in cell: String) -> [String] {
        let spans = cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map(\.element)
        return spans.compactMap { span in
            let head = span.prefix { $0 != "(" && $0 != " " && $0 != ":" }
            let last = head.split(separator: ".").last.map(String.init) ?? ""
            return last.isEmpty ? nil : last
        }
    }
}

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
