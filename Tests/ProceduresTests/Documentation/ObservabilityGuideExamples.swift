import Foundation
import ProceduresTesting
import XCTest

// Documentation/Observability.md, verbatim.

final class Fetch: Procedure, @unchecked Sendable {
    let path: String
    init(path: String) {
        self.path = path
        super.init()
        name = "fetch \(path)"
    }
    override func execute() {
        log.info("reading \(path)")
        log.debug("details nobody reads unless debugging: \(String(repeating: "x", count: 3))")
        finish()
    }
}

final class ObservabilityGuideTests: XCTestCase {
    override func tearDown() {
        ProcedureLog.minimumLevel = nil
        ProcedureLog.sink = StandardErrorLogSink()
        super.tearDown()
    }

    func testTurningLoggingOn() {
        ProcedureLog.minimumLevel = .info
        ProcedureLog.sink = BufferedLogSink(wrapping: StandardErrorLogSink())
        XCTAssertTrue(ProcedureLog.isEnabled(.info))
        XCTAssertFalse(ProcedureLog.isEnabled(.debug))
        XCTAssertTrue(ProcedureLog.sink is BufferedLogSink)
    }

    func testOneProceduresLevel() {
        let sink = CollectingLogSink()
        ProcedureLog.sink = sink
        XCTAssertNil(ProcedureLog.minimumLevel)
        let suspect = Fetch(path: "b.json")
        suspect.log.minimumLevel = .trace  // this one in full, even while logging is off
        let chatty = Fetch(path: "c.json")
        chatty.log.minimumLevel = nil  // this one not at all, even while logging is on
        ProcedureLog.minimumLevel = .info
        wait(for: suspect, chatty)
        XCTAssertTrue(sink.entries(about: suspect).map(\.message).contains("details nobody reads unless debugging: xxx"))
        XCTAssertEqual(sink.entries(about: suspect).last?.message, "finished")
        XCTAssertTrue(sink.entries(about: chatty).isEmpty)
        XCTAssertTrue(suspect.log.isEnabled(.debug))
        suspect.log.resetMinimumLevel()
        XCTAssertEqual(suspect.log.minimumLevel, .info)
        chatty.log.resetMinimumLevel()

        ProcedureLog.minimumLevel = nil
        let before = sink.entries.count
        let group = GroupProcedure(operations: [Fetch(path: "d.json"), Fetch(path: "e.json")])
        for case let child as Procedure in group.children { child.log.minimumLevel = .debug }
        wait(for: group)
        // The children log at .debug while logging is off; the group logs nothing.
        XCTAssertEqual(
            Set(sink.entries.dropFirst(before).filter { $0.message.hasPrefix("reading") }.map(\.message)),
            ["reading d.json", "reading e.json"])
        XCTAssertTrue(sink.entries(about: group).isEmpty)
        for case let child as Procedure in group.children { child.log.resetMinimumLevel() }
    }

    func testProfilerSummaryTraceAndGraph() throws {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        let download = Fetch(path: "a.json")
        let parse = BlockProcedure {}
        parse.name = "parse"
        parse.addDependency(download)
        queue.addOperations([download, parse], waitUntilFinished: false)
        wait(for: download, parse)

        let summary = profiler.summary(slowest: 5)
        print(summary)
        for profile in summary.slowest {
            print(profile.identity, profile.waitingTime ?? .zero, profile.runningTime ?? .zero)
        }
        profiler.detach()
        XCTAssertEqual(summary.count, 2)
        XCTAssertEqual(Set(summary.slowest.map(\.name)), ["fetch a.json", "parse"])

        let traceFile = FileManager.default.temporaryDirectory.appendingPathComponent("procedures-trace.json")
        try profiler.writeChromeTrace(to: traceFile)
        defer { try? FileManager.default.removeItem(at: traceFile) }
        let trace = try JSONSerialization.jsonObject(with: Data(contentsOf: traceFile)) as? [String: Any]
        XCTAssertNotNil(trace?["traceEvents"] as? [[String: Any]])

        let graphFile = FileManager.default.temporaryDirectory.appendingPathComponent("procedures-graph.dot")
        try profiler.dependencyGraph().write(to: graphFile)
        let plan = DependencyGraph([parse]).dot
        defer { try? FileManager.default.removeItem(at: graphFile) }
        let drawn = try String(contentsOf: graphFile, encoding: .utf8)
        XCTAssertTrue(drawn.contains("label=\"fetch a.json\""))
        XCTAssertTrue(drawn.contains("->"), "the dependency is an arrow")
        XCTAssertTrue(plan.contains("label=\"parse\""))
    }
    func testWhyIsntItRunning() {
        let clock = ManualClock()
        let migrate = DelayProcedure(by: 30, clock: clock)
        migrate.name = "migrate-db"
        migrate.addCondition(MutuallyExclusive<Void>(category: "guide-database"))
        let seed = BlockProcedure { print("seeding") }
        seed.name = "seed"
        seed.addCondition(MutuallyExclusive<Void>(category: "guide-database"))
        let report = BlockProcedure { print("reporting") }
        report.name = "report"
        report.addDependency(seed)
        let queue = ProcedureQueue()
        queue.addOperations([migrate, seed, report], waitUntilFinished: false)

        waitUntilScheduled(on: clock)
        let seedWaits = expectation(for: NSPredicate { _, _ in
            if case .exclusivity(_, let holder) = seed.waitingReason { return holder === migrate }
            return false
        }, evaluatedWith: nil)
        wait(for: [seedWaits], timeout: 10)

        if case .exclusivity(let category, let holder) = seed.waitingReason {
            print("seed waits for \(category), held by \(holder?.name ?? "?")")
        }
        print(queue.waitingReport)
        // migrate-db: waiting on a ManualClock until 30.0 (now 0.0)
        // report: waiting for seed
        // seed: waiting for exclusive category "guide-database", held by migrate-db

        XCTAssertEqual(queue.waitingReport, """
            migrate-db: waiting on a ManualClock until 30.0 (now 0.0)
            report: waiting for seed
            seed: waiting for exclusive category "guide-database", held by migrate-db
            """)
        XCTAssertEqual(queue.waitingProcedures.count, 3)
        clock.advance(by: 30)
        wait(for: migrate, seed, report)
    }

    func testDeadlocks() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let upload = BlockProcedure { print("uploading") }
        upload.name = "upload"
        let prepare = BlockProcedure { print("preparing") }
        prepare.name = "prepare"
        prepare.addDependency(upload)
        let sync = GroupProcedure(operations: [prepare])
        sync.name = "sync"
        queue.addOperation(sync)
        queue.addOperation(upload)  // waits for the only slot, which sync holds until prepare finishes

        wait(for: sync, upload)
        XCTAssertTrue(prepare.isCancelled)
        XCTAssertTrue(upload.isFinished && !upload.isCancelled)

        if case ProcedureError.deadlock(let reason)? = prepare.errors.first { print(reason) }
        // upload waits for a slot held by sync; sync waits for its child prepare; prepare waits for its dependency upload

        guard case ProcedureError.deadlock(let reason)? = prepare.errors.first else { return XCTFail("\(prepare.errors)") }
        for part in ["upload waits for a slot held by sync", "sync waits for its child prepare", "prepare waits for its dependency upload"] {
            XCTAssertTrue(reason.contains(part), reason)
        }
    }
}

// The guide's Progress section.

final class ImportRows: Procedure, @unchecked Sendable {
    let rows: [String]
    init(rows: [String]) {
        self.rows = rows
        super.init()
    }
    override func execute() {
        for (index, _) in rows.enumerated() {
            // … import one row …
            reportProgress(completed: Int64(index + 1), of: Int64(rows.count))
        }
        finish()
    }
}

final class ProgressGuideTests: XCTestCase {
    private func files(_ count: Int) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("progress-guide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try (0..<count).map { index in
            let file = directory.appendingPathComponent("\(index).txt")
            try Data(repeating: 1, count: index).write(to: file)
            return file.path
        }
    }

    func testObservingABatch() throws {
        let paths = try files(6)
        let queue = ProcedureQueue()
        let seen = LockedBox<[ProgressUpdate]>([])
        let final = XCTestExpectation(description: "final update")

        let sizes = BatchProcedure(input: paths, width: 4) { path in try Data(contentsOf: URL(fileURLWithPath: path)).count }
        let watching = sizes.observeProgress { update in
            print("\(update.completedUnitCount) of \(update.totalUnitCount) files")
        }
        queue.addOperation(sizes)

        sizes.observeProgress { update in
            seen.mutate { $0.append(update) }
            if update.isFinal { final.fulfill() }
        }

        wait(for: [final], timeout: 10)
        watching.cancel()
        XCTAssertEqual(sizes.output, [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(seen.value.last?.completedUnitCount, 6)
        XCTAssertEqual(seen.value.last?.fractionCompleted, 1)
    }

    func testProgressAsAnAsyncSequence() async throws {
        let paths = try files(3)
        let sizes = BatchProcedure(input: paths, width: 4) { path in try Data(contentsOf: URL(fileURLWithPath: path)).count }
        ProcedureQueue().addOperation(sizes)
        for await update in sizes.progressUpdates() {
            print("\(Int(update.fractionCompleted * 100)) %")
        }
        XCTAssertTrue(sizes.isFinished, "the loop ends once the procedure has finished")
        XCTAssertEqual(sizes.currentProgress.fractionCompleted, 1)
    }

    func testYourOwnProceduresAndWeights() {
        let bigTable = (0..<90).map { "row \($0)" }
        let smallTable = (0..<10).map { "row \($0)" }
        let install = GroupProcedure()
        install.addChild(ImportRows(rows: bigTable), progressWeight: 9)
        install.addChild(ImportRows(rows: smallTable), progressWeight: 1)
        XCTAssertEqual(install.progress.totalUnitCount, 10)
        wait(for: install)
        XCTAssertEqual(install.currentProgress.fractionCompleted, 1)

        let rows = ImportRows(rows: smallTable)
        rows.addWillFinishBlockObserver { rows, _ in
            // Before the finish completes it, the progress is what the procedure reported.
            XCTAssertEqual(rows.currentProgress.completedUnitCount, 10)
        }
        wait(for: rows)
    }
}
