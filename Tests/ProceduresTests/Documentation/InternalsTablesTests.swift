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
