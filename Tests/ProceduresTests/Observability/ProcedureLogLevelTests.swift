import Foundation
import ProceduresTesting
import Synchronization
import XCTest

@testable import Procedures

/// A procedure's own log level. Every procedure given a level here is reset before the test
/// ends, so that no other suite sees the hooks opened by a level left behind.
class OwnLogLevelTestCase: LogTestCase {
    private var leveled: [Procedure] = []

    /// `procedure`, to be reset at tear-down.
    @discardableResult
    func resettingAtTearDown<P: Procedure>(_ procedure: P) -> P {
        leveled.append(procedure)
        return procedure
    }

    override func tearDown() {
        for procedure in leveled { procedure.log.resetMinimumLevel() }
        leveled = []
        XCTAssertEqual(ProcedureLogLevels.ownLevelCount.load(ordering: .relaxed), 0, "a procedure kept a level of its own")
        super.tearDown()
        XCTAssertFalse(ProcedureInstrumentation.isActive, "logging is back to off")
    }
}

final class ProcedureLogLevelTests: OwnLogLevelTestCase {
    func testOwnLevelLetsItsMessagesAndLifecycleEventsThroughWhileLoggingIsOff() {
        XCTAssertNil(ProcedureLog.minimumLevel)
        final class Suspect: Procedure, @unchecked Sendable {
            override func execute() {
                log.debug("looking closer")
                finish()
            }
        }
        let dependency = TestProcedure(name: "dependency")
        let suspect = resettingAtTearDown(Suspect())
        suspect.name = "suspect"
        suspect.addDependency(dependency)
        suspect.log.minimumLevel = .trace
        let bystander = TestProcedure(name: "bystander", error: TestError("ignored"))
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        wait(for: dependency, suspect, bystander)
        suspect.finish()
        bystander.finish()

        let entries = sink.entries(about: suspect)
        XCTAssertEqual(
            entries.map(\.message),
            [
                "enqueued, waits for dependency#\(dependency.instrumentationReference.id)", "ready", "started",
                "looking closer", "finished", entries.last?.message ?? "",
            ])
        XCTAssertEqual(entries.map(\.level), [.trace, .trace, .debug, .debug, .debug, .error])
        XCTAssertEqual(entries.map(\.isLibraryEvent), [true, true, true, false, true, true])
        XCTAssertTrue(entries.last?.message.contains("finishedTwice") ?? false, "the misuse naming it: \(entries)")
        XCTAssertTrue(sink.entries(about: dependency).isEmpty, "a dependency keeps the process-wide level")
        XCTAssertTrue(sink.entries(about: bystander).isEmpty, "its failure and misuse stay unlogged")
        XCTAssertEqual(misuse.kinds(about: bystander), [.finishedTwice], "the misuse handler still runs")
    }

    func testOwnLevelSilencesAChattyProcedureWhileLoggingIsOn() {
        ProcedureLog.minimumLevel = .trace
        final class Chatty: Procedure, @unchecked Sendable {
            override func execute() {
                for index in 0..<10 { log.info("chatter \(index)") }
                log.critical("still said")
                finish(withError: TestError("failed"))
            }
        }
        let muted = resettingAtTearDown(Chatty())
        muted.log.minimumLevel = nil
        let quieter = resettingAtTearDown(Chatty())
        quieter.log.minimumLevel = .warning
        let neighbour = TestProcedure(name: "neighbour")
        wait(for: muted, quieter, neighbour)

        XCTAssertTrue(sink.entries(about: muted).isEmpty, "\(sink.entries(about: muted))")
        XCTAssertEqual(sink.entries(about: quieter).map(\.message), ["still said", "finished with errors: [TestError(failed)]"])
        XCTAssertEqual(sink.entries(about: quieter).map(\.level), [.critical, .warning])
        XCTAssertEqual(
            sink.entries(about: neighbour).map(\.level), [.trace, .trace, .debug, .debug],
            "a neighbour is logged at the process-wide level")
    }

    func testOtherProceduresFollowTheProcessWideLevelAsItChanges() {
        ProcedureLog.minimumLevel = .warning
        let suspect = resettingAtTearDown(BlockProcedure {})
        let other = BlockProcedure {}
        suspect.log.minimumLevel = .debug
        XCTAssertEqual(suspect.log.minimumLevel, .debug)
        XCTAssertTrue(suspect.log.hasOwnMinimumLevel)
        XCTAssertEqual(other.log.minimumLevel, .warning)
        XCTAssertFalse(other.log.hasOwnMinimumLevel)

        ProcedureLog.minimumLevel = .info
        XCTAssertEqual(other.log.minimumLevel, .info)
        XCTAssertEqual(suspect.log.minimumLevel, .debug, "its own level does not follow the process-wide one")
        for procedure in [suspect, other] {
            procedure.log.debug("debug")
            procedure.log.info("info")
        }
        XCTAssertEqual(sink.entries(about: suspect).map(\.message), ["debug", "info"])
        XCTAssertEqual(sink.entries(about: other).map(\.message), ["info"])
        XCTAssertTrue(suspect.log.isEnabled(.debug))
        XCTAssertFalse(other.log.isEnabled(.debug))
        XCTAssertFalse(ProcedureLog.isEnabled(.debug), "the process-wide answer is the process-wide level's")
    }

    func testMessagesBelowTheProcedureLevelAreNeverBuilt() {
        let built = Atomic<Int>(0)
        func message(_ text: String) -> String {
            built.add(1, ordering: .relaxed)
            return text
        }
        let procedure = resettingAtTearDown(BlockProcedure {})
        // Its own level above the process-wide one, then below it while logging is off.
        let cases: [(global: ProcedureLog.Level?, own: ProcedureLog.Level, expected: [String])] = [
            (.trace, .error, ["error", "critical"]),
            (nil, .notice, ["notice", "warning", "error", "critical"]),
        ]
        for (global, own, expected) in cases {
            ProcedureLog.minimumLevel = global
            procedure.log.minimumLevel = own
            built.store(0, ordering: .relaxed)
            let before = sink.entries(about: procedure).count
            for level in ProcedureLog.Level.allCases { procedure.log.log(level: level, message("\(level)")) }
            XCTAssertEqual(built.load(ordering: .relaxed), expected.count, "only messages that are written are built")
            XCTAssertEqual(sink.entries(about: procedure).dropFirst(before).map(\.message), expected)
        }
        procedure.log.minimumLevel = nil
        built.store(0, ordering: .relaxed)
        for level in ProcedureLog.Level.allCases { procedure.log.log(level: level, message("\(level)")) }
        XCTAssertEqual(built.load(ordering: .relaxed), 0, "a procedure whose log is off builds nothing")
    }

    func testResetFollowsTheProcessWideLevelAgain() {
        ProcedureLog.minimumLevel = .error
        let procedure = resettingAtTearDown(BlockProcedure {})
        procedure.log.minimumLevel = .trace
        procedure.log.info("while traced")
        procedure.log.resetMinimumLevel()
        XCTAssertFalse(procedure.log.hasOwnMinimumLevel)
        XCTAssertEqual(procedure.log.minimumLevel, .error)
        procedure.log.info("after the reset")
        procedure.log.error("an error")
        XCTAssertEqual(sink.entries(about: procedure).map(\.message), ["while traced", "an error"])
        procedure.log.resetMinimumLevel()  // a second reset changes nothing
        XCTAssertEqual(ProcedureLogLevels.ownLevelCount.load(ordering: .relaxed), 0)
    }

    func testGroupLevelDoesNotApplyToItsChildren() {
        let child = TestProcedure(name: "child")
        let group = resettingAtTearDown(GroupProcedure(operations: [child]))
        group.name = "group"
        group.log.minimumLevel = .trace
        wait(for: group)
        XCTAssertEqual(sink.entries(about: group).map(\.message), ["enqueued", "ready", "started", "finished"])
        XCTAssertTrue(sink.entries(about: child).isEmpty, "children keep their own (here the process-wide) level")
    }

    func testSettingItOnEachChildTracesAGroupsWork() {
        let first = TestProcedure(name: "first")
        let second = TestProcedure(name: "second")
        let group = GroupProcedure(operations: [first, second])
        group.name = "import"
        for case let child as Procedure in group.children { resettingAtTearDown(child).log.minimumLevel = .debug }
        wait(for: group)
        XCTAssertEqual(sink.entries(about: first).map(\.message), ["started", "finished"])
        XCTAssertEqual(sink.entries(about: second).map(\.message), ["started", "finished"])
        XCTAssertTrue(sink.entries(about: group).isEmpty)
    }

    /// While no procedure has a level of its own, a log call reads only the process-wide gate.
    func testAFreedProcedureNoLongerKeepsTheHooksOn() {
        do {
            let procedure = BlockProcedure {}
            procedure.log.minimumLevel = .trace
            XCTAssertTrue(ProcedureInstrumentation.isActive, "its events must be looked at")
            XCTAssertEqual(ProcedureLogLevels.gate.load(ordering: .relaxed), ProcedureLog.Level.trace.rawValue)
        }
        XCTAssertEqual(ProcedureLogLevels.ownLevelCount.load(ordering: .relaxed), 0)
        XCTAssertFalse(ProcedureInstrumentation.isActive)
        XCTAssertEqual(ProcedureLogLevels.gate.load(ordering: .relaxed), ProcedureLogLevels.off)
    }

    /// Even a level of its own at .error (no lifecycle event) keeps its misuse reports.
    func testMisuseNamingTheProcedureFollowsItsLevel() {
        ProcedureLog.minimumLevel = .trace
        let quiet = resettingAtTearDown(BlockProcedure {})
        quiet.log.minimumLevel = .critical
        let loud = resettingAtTearDown(BlockProcedure {})
        loud.log.minimumLevel = .error
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        wait(for: quiet, loud)
        quiet.finish()
        loud.finish()
        XCTAssertTrue(sink.entries(about: quiet).isEmpty, "\(sink.entries(about: quiet))")
        XCTAssertEqual(sink.entries(about: loud).map(\.level), [.error])
        XCTAssertEqual(misuse.kinds(about: quiet), [.finishedTwice])
    }
}
