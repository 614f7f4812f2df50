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
}
