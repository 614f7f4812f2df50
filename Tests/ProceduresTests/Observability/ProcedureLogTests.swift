import Foundation
import ProceduresTesting
import Synchronization
import XCTest

@testable import Procedures

/// A sink that keeps what it receives, for assertions.
final class CollectingLogSink: ProcedureLogSink, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [ProcedureLog.Entry] = []

    func write(_ entry: ProcedureLog.Entry) { lock.withLock { stored.append(entry) } }

    var entries: [ProcedureLog.Entry] { lock.withLock { stored } }

    /// Entries about `procedure` (other tests' stray procedures may log meanwhile).
    func entries(about procedure: Procedure) -> [ProcedureLog.Entry] {
        let id = procedure.instrumentationReference.id
        return entries.filter { $0.procedure?.procedure.id == id }
    }
}

/// Logging is process-wide: every test restores it to off and the default sink.
class LogTestCase: XCTestCase {
    let sink = CollectingLogSink()

    override func setUp() {
        super.setUp()
        ProcedureLog.sink = sink
    }

    override func tearDown() {
        ProcedureLog.minimumLevel = nil
        ProcedureLog.sink = StandardErrorLogSink()
        super.tearDown()
    }
}

final class ProcedureLogTests: LogTestCase {
    func testOffByDefaultAndThenMessagesAreNeverBuilt() {
        XCTAssertNil(ProcedureLog.minimumLevel, "logging is off unless turned on")
        XCTAssertFalse(ProcedureInstrumentation.isActive)
        let built = Atomic<Int>(0)
        let procedure = BlockProcedure {}
        func message() -> String {
            built.add(1, ordering: .relaxed)
            return "expensive"
        }
        for level in ProcedureLog.Level.allCases { procedure.log.log(level: level, message()) }
        wait(for: procedure)
        XCTAssertEqual(built.load(ordering: .relaxed), 0)
        XCTAssertTrue(sink.entries(about: procedure).isEmpty)
    }

    func testMessagesBelowTheMinimumLevelAreDroppedUnbuilt() {
        ProcedureLog.minimumLevel = .warning
        let built = Atomic<Int>(0)
        let procedure = BlockProcedure {}
        func message(_ text: String) -> String {
            built.add(1, ordering: .relaxed)
            return text
        }
        procedure.log.trace(message("trace"))
        procedure.log.debug(message("debug"))
        procedure.log.info(message("info"))
        procedure.log.notice(message("notice"))
        procedure.log.warning(message("warning"))
        procedure.log.error(message("error"))
        procedure.log.critical(message("critical"))
        XCTAssertEqual(built.load(ordering: .relaxed), 3)
        let entries = sink.entries(about: procedure)
        XCTAssertEqual(entries.map(\.message), ["warning", "error", "critical"])
        XCTAssertEqual(entries.map(\.level), [.warning, .error, .critical])
        XCTAssertFalse(entries.contains { $0.isLibraryEvent })
        XCTAssertTrue(entries[0].file.hasSuffix("ProcedureLogTests.swift"))
    }

    func testEntriesCarryNameStableIDAndGroup() {
        ProcedureLog.minimumLevel = .info
        final class Chatty: Procedure, @unchecked Sendable {
            override func execute() {
                log.info("hello")
                log.info("again")
                finish()
            }
        }
        let child = Chatty()
        child.name = "chatty"
        let group = GroupProcedure(operations: [child])
        group.name = "outer"
        wait(for: group)
        let entries = sink.entries(about: child).filter { !$0.isLibraryEvent }
        XCTAssertEqual(entries.map(\.message), ["hello", "again"])
        XCTAssertEqual(Set(entries.map { $0.procedure!.procedure }).count, 1, "the id is stable")
        XCTAssertEqual(entries.first?.procedure?.procedure.name, "chatty")
        XCTAssertEqual(entries.first?.procedure?.parent?.name, "outer")
        XCTAssertEqual(entries.first?.procedure?.parent?.id, group.instrumentationReference.id)
        XCTAssertTrue(entries[0].description.hasPrefix("[info] chatty#"), entries[0].description)
        XCTAssertTrue(entries[0].description.contains(" in outer#"), entries[0].description)
    }

    func testLifecycleEventsAtTheirLevels() {
        ProcedureLog.minimumLevel = .trace
        let dependency = TestProcedure(name: "dependency")
        let ok = TestProcedure(name: "ok")
        ok.addDependency(dependency)
        let failing = TestProcedure(name: "failing", error: TestError("bad"))
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel(withError: TestError("stop"))
        wait(for: dependency, ok, failing, cancelled)

        let okEntries = sink.entries(about: ok).filter(\.isLibraryEvent)
        XCTAssertEqual(okEntries.map(\.level), [.trace, .trace, .debug, .debug])
        XCTAssertEqual(okEntries.map(\.message).first, "enqueued, waits for dependency#\(dependency.instrumentationReference.id)")
        XCTAssertEqual(okEntries.map(\.message).dropFirst(), ["ready", "started", "finished"])
        let failure = sink.entries(about: failing).last
        XCTAssertEqual(failure?.level, .warning)
        XCTAssertEqual(failure?.message, "finished with errors: [TestError(bad)]")
        let cancel = sink.entries(about: cancelled).first { $0.message.hasPrefix("cancelled") }
        XCTAssertEqual(cancel?.level, .notice)
        XCTAssertEqual(cancel?.message, "cancelled with errors: [TestError(stop)]")
    }

    func testQuietLevelShowsOnlyProblems() {
        ProcedureLog.minimumLevel = .warning
        let ok = TestProcedure(name: "ok")
        let failing = TestProcedure(name: "failing", error: TestError("bad"))
        wait(for: ok, failing)
        XCTAssertTrue(sink.entries(about: ok).isEmpty)
        XCTAssertEqual(sink.entries(about: failing).map(\.level), [.warning])
    }

    func testMisuseIsLoggedAsAnError() {
        ProcedureLog.minimumLevel = .error
        // No lifecycle event logs above .warning: at .error the hooks stay off.
        XCTAssertFalse(ProcedureInstrumentation.isActive)
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let procedure = BlockProcedure {}
        wait(for: procedure)
        procedure.finish()
        let entries = sink.entries(about: procedure)
        XCTAssertEqual(entries.map(\.level), [.error])
        XCTAssertTrue(entries.first?.message.contains("finishedTwice") ?? false, "\(entries)")
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice], "the misuse handler still runs")
    }

    func testTurningLoggingOffStopsTheLifecycleHooks() {
        ProcedureLog.minimumLevel = .debug
        XCTAssertTrue(ProcedureInstrumentation.isActive)
        ProcedureLog.minimumLevel = nil
        XCTAssertFalse(ProcedureInstrumentation.isActive)
        let procedure = TestProcedure()
        wait(for: procedure)
        XCTAssertTrue(sink.entries(about: procedure).isEmpty)
    }
}

/// A sink that blocks until released: the worst a user's sink can do.
final class BlockingLogSink: ProcedureLogSink, @unchecked Sendable {
    // @unchecked: the semaphore and the atomic are themselves thread-safe.
    let release = DispatchSemaphore(value: 0)
    let received = Atomic<Int>(0)

    func write(_ entry: ProcedureLog.Entry) {
        received.add(1, ordering: .relaxed)
        release.wait()  // test code: deliberately blocks the sink's thread
        release.signal()
    }
}

final class BufferedLogSinkTests: LogTestCase {
    func testABlockedSinkDoesNotHoldUpProceduresAndOverflowIsCounted() {
        let blocking = BlockingLogSink()
        let buffered = BufferedLogSink(wrapping: blocking, capacity: 8)
        ProcedureLog.sink = buffered
        ProcedureLog.minimumLevel = .trace
        let procedures = (0..<stressIterations(200)).map { TestProcedure(name: "p\($0)") }
        // Every procedure logs at least four lines; the sink takes none of them yet.
        wait(forAll: procedures, timeout: 10)
        XCTAssertGreaterThan(buffered.droppedCount, 0)
        XCTAssertLessThanOrEqual(blocking.received.load(ordering: .relaxed), 1)

        ProcedureLog.minimumLevel = nil
        blocking.release.signal()
        let flushed = expectation(description: "flushed")
        buffered.flush { flushed.fulfill() }
        wait(for: [flushed], timeout: 10)
        // The first entry it blocked on, plus at most the buffer's capacity.
        XCTAssertLessThanOrEqual(blocking.received.load(ordering: .relaxed), 9)
        XCTAssertGreaterThan(blocking.received.load(ordering: .relaxed), 1)
    }

    func testDeliversInOrderOnItsOwnQueue() {
        let collecting = CollectingLogSink()
        let buffered = BufferedLogSink(wrapping: collecting)
        ProcedureLog.sink = buffered
        ProcedureLog.minimumLevel = .info
        let procedure = BlockProcedure {}
        for index in 0..<100 { procedure.log.info("\(index)") }
        let flushed = expectation(description: "flushed")
        buffered.flush { flushed.fulfill() }
        wait(for: [flushed], timeout: 10)
        XCTAssertEqual(collecting.entries(about: procedure).map(\.message), (0..<100).map { "\($0)" })
        XCTAssertEqual(buffered.droppedCount, 0)
    }
}

final class QuietLoggingTests: LogTestCase {
    /// At a quiet level an event that is not logged is not built either: a procedure that
    /// succeeds gets no number and no entry.
    func testEventsBelowTheLevelAreNotBuilt() {
        ProcedureLog.minimumLevel = .warning
        let procedure = TestProcedure()
        wait(for: procedure)
        XCTAssertEqual(procedure.lock.withLock { procedure.state.instrumentation.id }, 0, "no identity was built")
        XCTAssertTrue(sink.entries(about: procedure).isEmpty)
    }
}
