import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import ProceduresTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// What a program leaves behind cannot hold its procedure, and (with containment) does not
/// outlive it. Tests that turn containment on, which is process-wide and cannot be undone, run
/// in a child copy of the test binary, one test per copy.
final class ProcessContainmentTests: XCTestCase {
    private var queue: ProcedureQueue!

    override func setUp() {
        super.setUp()
        queue = ProcedureQueue()
    }

    override func tearDown() {
        queue = nil
        super.tearDown()
    }

    // MARK: - Without containment (the default)

    func testATimedOutProgramFinishesWithinItsGracePeriodThoughAnEscapedDescendantHoldsItsOutput() throws {
        let escaped = try timedOutProgramWithEscapedDescendant()
        // Found by the walk made before stopping, it was killed; nobody here adopts it.
        XCTAssertTrue(processState(escaped) == nil || processState(escaped) == "Z", "pid \(escaped) still runs")
    }

    func testACancelledProgramFinishesWithinItsGracePeriodThoughAnEscapedDescendantHoldsItsOutput() throws {
        let escaped = try cancelledProgramWithEscapedDescendant()
        XCTAssertTrue(processState(escaped) == nil || processState(escaped) == "Z", "pid \(escaped) still runs")
    }

    func testOrdinaryOutputIsCompleteAndNotCutShort() throws {
        try assertOrdinaryOutputIsComplete()
    }

    // MARK: - Control groups

    func testWithControlGroupsATimedOutProgramLeavesNoDescendant() throws {
        guard isChild else { return assertChildSurvives("testWithControlGroupsATimedOutProgramLeavesNoDescendant") }
        try enable(.controlGroup)
        let escaped = try timedOutProgramWithEscapedDescendant()
        XCTAssertFalse(processExists(escaped), "pid \(escaped) outlived its procedure (or was not reaped)")
    }

    func testWithControlGroupsACancelledProgramLeavesNoDescendant() throws {
        guard isChild else { return assertChildSurvives("testWithControlGroupsACancelledProgramLeavesNoDescendant") }
        try enable(.controlGroup)
        let escaped = try cancelledProgramWithEscapedDescendant()
        XCTAssertFalse(processExists(escaped), "pid \(escaped) outlived its procedure (or was not reaped)")
    }

    func testWithControlGroupsADaemonLeftByAProgramThatExitsIsKilledAndReaped() throws {
        guard isChild else { return assertChildSurvives("testWithControlGroupsADaemonLeftByAProgramThatExitsIsKilledAndReaped") }
        try enable(.controlGroup)
        // (After a moment: a program is moved into its cgroup just after it has started.)
        let procedure = ProcessProcedure(shellCommand: "sleep 0.1; " + Self.daemonThenDone)
        let began = Date()
        wait(for: procedure, on: queue, timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(began), 2)
        assertProcedureFinished(procedure)
        let output = try XCTUnwrap(procedure.output)
        let daemon = try XCTUnwrap(Int32(output.standardOutputString.split(separator: "\n").first ?? ""))
        XCTAssertEqual(output.standardOutputString, "\(daemon)\ndone\n")
        XCTAssertFalse(output.standardOutputWasCutShort, "the daemon was killed, so the output ended")
        XCTAssertFalse(processExists(daemon), "pid \(daemon) outlived its procedure (or was not reaped)")
    }

    func testWithControlGroupsAnOrphanThatExitedBeforeTheEndIsReaped() throws {
        guard isChild else { return assertChildSurvives("testWithControlGroupsAnOrphanThatExitedBeforeTheEndIsReaped") }
        try enable(.controlGroup)
        // The orphan comes to this process (a subreaper) and exits there, long before the end.
        let procedure = ProcessProcedure(
            shellCommand: "sleep 0.1; (sleep 0.05 >/dev/null & echo $!); sleep 0.5", standardOutput: .lines)
        let orphan = try XCTUnwrap(firstLine(of: procedure, on: queue).flatMap { Int32($0) })
        wait(for: procedure, on: queue, timeout: 30)
        assertProcedureFinished(procedure)
        XCTAssertFalse(processExists(orphan), "the orphan's zombie was left unreaped")
    }

    func testWithControlGroupsOrdinaryOutputIsCompleteAndNotCutShort() throws {
        guard isChild else { return assertChildSurvives("testWithControlGroupsOrdinaryOutputIsCompleteAndNotCutShort") }
        try enable(.controlGroup)
        try assertOrdinaryOutputIsComplete()
    }

    // MARK: - Subreaper (no control groups)

    func testWithASubreaperATimedOutProgramLeavesNoDescendant() throws {
        guard isChild else { return assertChildSurvives("testWithASubreaperATimedOutProgramLeavesNoDescendant") }
        try enable(.subreaper)
        let escaped = try timedOutProgramWithEscapedDescendant()
        XCTAssertFalse(processExists(escaped), "pid \(escaped) outlived its procedure (or was not reaped)")
    }

    func testWithASubreaperACancelledProgramLeavesNoDescendant() throws {
        guard isChild else { return assertChildSurvives("testWithASubreaperACancelledProgramLeavesNoDescendant") }
        try enable(.subreaper)
        let escaped = try cancelledProgramWithEscapedDescendant()
        XCTAssertFalse(processExists(escaped), "pid \(escaped) outlived its procedure (or was not reaped)")
    }

    func testWithASubreaperAKilledGrandchildLeavesNoZombie() throws {
        guard isChild else { return assertChildSurvives("testWithASubreaperAKilledGrandchildLeavesNoZombie") }
        try enable(.subreaper)
        let procedure = ProcessProcedure(shellCommand: "sleep 1000 & echo $!; wait", standardOutput: .lines)
        let grandchild = try XCTUnwrap(firstLine(of: procedure, on: queue).flatMap { Int32($0) })
        procedure.cancel()
        wait(for: procedure, on: queue, timeout: 30)
        XCTAssertFalse(processExists(grandchild), "pid \(grandchild) is left (a zombie nobody reaps?)")
    }

    func testWithASubreaperOutputHeldByAnOrphanIsCutShortOnTheClock() throws {
        guard isChild else { return assertChildSurvives("testWithASubreaperOutputHeldByAnOrphanIsCutShortOnTheClock") }
        try enable(.subreaper)
        let clock = ManualClock()
        // A daemon that keeps standard output: beyond a walk's reach, so the wait is cut short.
        let procedure = ProcessProcedure(shellCommand: Self.daemonThenDone, clock: clock)
        queue.addOperation(procedure)
        waitUntilScheduled(on: clock)  // the program has exited; its output is still open
        XCTAssertEqual(clock.pendingDeadlines, [0.5])
        XCTAssertFalse(procedure.isFinished)
        advance(clock, by: 0.5)
        wait(for: procedure, on: queue, timeout: 10)
        assertProcedureFinished(procedure)
        let output = try XCTUnwrap(procedure.output)
        XCTAssertTrue(output.standardOutputWasCutShort)
        XCTAssertFalse(output.standardErrorWasCutShort)
        let orphan = try XCTUnwrap(Int32(output.standardOutputString.split(separator: "\n").first ?? ""))
        XCTAssertEqual(output.standardOutputString, "\(orphan)\ndone\n", "what was written before the cut is kept")
        XCTAssertTrue(processExists(orphan))
        // A tool that starts children only through procedures ends such orphans before it exits.
        let ended = expectation(description: "orphans ended")
        ProcessContainment.endAdoptedOrphans { ended.fulfill() }
        wait(for: [ended], timeout: 10)
        XCTAssertFalse(processExists(orphan), "pid \(orphan) was not killed and reaped")
    }

    // MARK: - Stress

    func testWithControlGroupsCancelsRacingExitsLeaveNoProcessNoZombieAndNoCgroup() throws {
        guard isChild else { return assertChildSurvives("testWithControlGroupsCancelsRacingExitsLeaveNoProcessNoZombieAndNoCgroup") }
        try enable(.controlGroup)
        // Half of them exit by themselves, leaving daemons (after a moment: a program is moved
        // into its cgroup just after it has started, which a busy machine can delay).
        assertCancelsRacingExitsLeaveNothing { index in
            "sleep 0.05; sleep 5 & setsid sleep 5 & (setsid sleep 5 &); echo up" + (index % 2 == 0 ? "; wait" : "")
        }
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: Self.ownControlGroupDirectory())) ?? []
        XCTAssertEqual(leftovers.filter { $0.first?.isNumber == true }, [], "program cgroups left behind")
    }

    func testWithASubreaperCancelsRacingExitsLeaveNoProcessAndNoZombie() throws {
        guard isChild else { return assertChildSurvives("testWithASubreaperCancelsRacingExitsLeaveNoProcessAndNoZombie") }
        try enable(.subreaper)
        // Descendants that stay below the program (what walks can find), some still starting.
        assertCancelsRacingExitsLeaveNothing { _ in "sleep 5 & setsid sleep 5 & echo up; wait" }
    }

    /// Programs that start descendants in their group and outside it, cancelled at whatever
    /// point they have reached: once all have finished, this process has no child left,
    /// running or zombie.
    private func assertCancelsRacingExitsLeaveNothing(
        file: StaticString = #filePath, line: UInt = #line, script: (Int) -> String
    ) {
        let count = stressIterations(60)
        let procedures = (0..<count).map { ProcessProcedure(shellCommand: script($0), terminationGracePeriod: 1) }
        for (index, procedure) in procedures.enumerated() {
            // From just after the spawn to well after a quick program's exit.
            procedure.addDidExecuteBlockObserver { procedure in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(index % 8 * 15)) { procedure.cancel() }
            }
        }
        queue.maxConcurrentOperationCount = 8
        queue.addOperations(procedures, waitUntilFinished: false)
        wait(forAll: procedures, on: queue, timeout: 120)
        let left = Self.ownChildren().map { pid in
            ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "\(pid) gone").prefix(40)
                + " in " + ((try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? "?").suffix(30)
        }
        XCTAssertEqual(left, [], "children left behind (\(ProcessContainment.mechanism))", file: file, line: line)
    }

    /// This process's children, running or zombie (of every thread).
    private static func ownChildren() -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// The directory of this process's program cgroups (`procedures-PID` next to its own cgroup).
    private static func ownControlGroupDirectory() -> String {
        let own = ((try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? "")
            .split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) } ?? "/"
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        var mount = "/sys/fs/cgroup"
        for entry in mounts.split(separator: "\n") {
            let fields = entry.split(separator: " ")
            if fields.count > 2 && fields[2] == "cgroup2" {
                mount = String(fields[1])
                break
            }
        }
        let base: String = own == "/" ? "" : own
        return mount + base + "/procedures-\(getpid())"
    }

    // MARK: - Helpers

    /// A shell script that starts a daemon (a double fork into a session of its own, holding
    /// standard output but not standard error), prints its pid once it is detached, then
    /// "done", and exits: no walk of the program's tree can find the daemon.
    private static let daemonThenDone = """
        m=$(mktemp -u); (setsid sh -c 'echo $$ > "$0"; exec sleep 100' "$m" 2>/dev/null &)
        until [ -s "$m" ]; do sleep 0.01; done; cat "$m"; rm -f "$m"; echo done
        """

    private func enable(_ mechanism: ProcessContainment.Mechanism, file: StaticString = #filePath, line: UInt = #line) throws {
        let got = ProcessContainment.enable(controlGroups: mechanism == .controlGroup)
        if got < mechanism { throw XCTSkip("containment by \(mechanism) is not possible here (got \(got))") }
        XCTAssertEqual(got, mechanism, file: file, line: line)
    }

    /// Runs a program that starts a descendant in a session of its own (holding the program's
    /// output, saying its pid once it has left the group), with a timeout of 0.5 s and a grace period of 1 s; checks that the procedure
    /// finished within grace + 1 s of the timeout, and returns the descendant's pid.
    private func timedOutProgramWithEscapedDescendant(file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("escaped-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let procedure = ProcessProcedure(
            shellCommand: "setsid sh -c 'echo $$ > \"$0\"; exec sleep 4' '\(marker.path)' & sleep 100", terminationGracePeriod: 1)
            .timeout(after: 0.5)
        let began = Date()
        wait(for: procedure, on: queue, timeout: 30)
        let elapsed = Date().timeIntervalSince(began)
        XCTAssertLessThan(elapsed, 0.5 + 1 + 1, "held by the descendant", file: file, line: line)
        guard case .timedOut? = procedure.errors.first as? ProcedureError else {
            throw XCTSkip("not timed out: \(procedure.errors)")
        }
        return try XCTUnwrap(Int32(try String(contentsOf: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// As ``timedOutProgramWithEscapedDescendant()``, cancelled once it has started.
    private func cancelledProgramWithEscapedDescendant(file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        // The descendant says its pid once it has left the group.
        let procedure = ProcessProcedure(
            shellCommand: "setsid sh -c 'echo $$; exec sleep 4' & sleep 100", standardOutput: .lines, terminationGracePeriod: 1)
        let escaped = try XCTUnwrap(firstLine(of: procedure, on: queue).flatMap { Int32($0) })
        let began = Date()
        procedure.cancel()
        wait(for: procedure, on: queue, timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(began), 1 + 1, "held by the descendant", file: file, line: line)
        assertProcedureCancelled(procedure, file: file, line: line)
        return escaped
    }

    private func assertOrdinaryOutputIsComplete(file: StaticString = #filePath, line: UInt = #line) throws {
        // Three megabytes through a pipeline whose last writer exits just before the shell does.
        let procedure = ProcessProcedure(
            shellCommand: "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo to-error >&2",
            standardOutput: .capture(limit: 4 << 20))
        wait(for: procedure, on: queue, timeout: 30)
        assertProcedureFinished(procedure, file: file, line: line)
        let output = try XCTUnwrap(procedure.output, file: file, line: line)
        XCTAssertEqual(output.standardOutput.count, 3_000_001, file: file, line: line)
        XCTAssertEqual(output.standardErrorString, "to-error\n", file: file, line: line)
        XCTAssertFalse(output.standardOutputWasCutShort, file: file, line: line)
        XCTAssertFalse(output.standardErrorWasCutShort, file: file, line: line)
    }
}
