import Foundation
import ProceduresTesting
import XCTest

@testable import Procedures

final class ChromeTraceTests: XCTestCase {
    private func recordSample() -> ProcedureProfiler {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let download = TestProcedure(name: "download \"a\"")
        let parse = TestProcedure(name: "parse")
        parse.addDependency(download)
        let group = GroupProcedure(operations: [download, parse])
        group.name = "pipeline"
        let failing = TestProcedure(name: "failing", error: TestError("disk full"))
        wait(for: group, failing, on: queue)
        return profiler
    }

    private func events(of profiler: ProcedureProfiler) throws -> (root: [String: Any], events: [[String: Any]]) {
        let object = try JSONSerialization.jsonObject(with: profiler.chromeTrace().jsonData())
        let root = try XCTUnwrap(object as? [String: Any])
        let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]])
        return (root, events)
    }

    func testTraceLoadsAsJSONWithASlicePerExecutedProcedure() throws {
        let profiler = recordSample()
        let (root, events) = try events(of: profiler)
        XCTAssertEqual((root["otherData"] as? [String: Any])?["droppedProcedures"] as? Int, 0)

        let slices = events.filter { $0["ph"] as? String == "X" }
        XCTAssertEqual(Set(slices.compactMap { $0["name"] as? String }), ["download \"a\"", "parse", "pipeline", "failing"])
        let threadNames = Set(events.filter { $0["name"] as? String == "thread_name" }.compactMap { $0["tid"] as? Int })
        for slice in slices {
            XCTAssertNotNil(slice["ts"] as? Double ?? (slice["ts"] as? Int).map(Double.init))
            XCTAssertNotNil(slice["dur"])
            let tid = try XCTUnwrap(slice["tid"] as? Int)
            XCTAssertTrue(threadNames.contains(tid), "every thread with a slice is named")
        }
        let failing = try XCTUnwrap(slices.first { $0["name"] as? String == "failing" })
        let arguments = try XCTUnwrap(failing["args"] as? [String: Any])
        XCTAssertEqual(arguments["errors"] as? [String], ["TestError(disk full)"])
        let parse = try XCTUnwrap(slices.first { $0["name"] as? String == "parse" })
        XCTAssertTrue((parse["args"] as? [String: Any])?["group"] as? String ?? "" == "pipeline#\(profiler.profiles.first { $0.name == "pipeline" }!.identity.procedure.id)")
    }

    func testLifetimesNestWaitingAndRunningAndNameTheGroupPath() throws {
        let (_, events) = try events(of: recordSample())
        let async = events.filter { $0["cat"] as? String == "lifecycle" }
        // Every begin has its end, per procedure track.
        var depth: [String: Int] = [:]
        for event in async {
            let id = try XCTUnwrap(event["id"] as? String)
            switch event["ph"] as? String {
            case "b": depth[id, default: 0] += 1
            case "e":
                depth[id, default: 0] -= 1
                XCTAssertGreaterThanOrEqual(depth[id]!, 0, "an end before its begin")
            default: XCTFail("unexpected phase in \(event)")
            }
        }
        XCTAssertTrue(depth.values.allSatisfy { $0 == 0 })
        XCTAssertEqual(depth.count, 4, "a lifetime track per procedure")
        let names = Set(async.compactMap { $0["name"] as? String })
        XCTAssertTrue(names.isSuperset(of: ["pipeline ▸ parse", "pipeline ▸ download \"a\"", "waiting", "running", "failing"]), "\(names)")
    }

    func testDependenciesBecomeFlowArrows() throws {
        let (_, events) = try events(of: recordSample())
        let starts = events.filter { $0["ph"] as? String == "s" }
        let finishes = events.filter { $0["ph"] as? String == "f" }
        XCTAssertEqual(starts.count, 1, "one dependency: parse waits for download")
        XCTAssertEqual(starts.first?["id"] as? Int, finishes.first?["id"] as? Int)
        XCTAssertEqual(finishes.first?["bp"] as? String, "e")
        let slices = events.filter { $0["ph"] as? String == "X" }
        let download = try XCTUnwrap(slices.first { $0["name"] as? String == "download \"a\"" })
        XCTAssertEqual(starts.first?["tid"] as? Int, download["tid"] as? Int)
    }

    func testCountsDroppedProceduresInTheFile() throws {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler(capacity: 3)
        profiler.attach(to: queue)
        defer { profiler.detach() }
        wait(forAll: (0..<10).map { TestProcedure(name: "p\($0)") }, on: queue)
        let (root, events) = try events(of: profiler)
        XCTAssertEqual((root["otherData"] as? [String: Any])?["droppedProcedures"] as? Int, 7)
        XCTAssertTrue(events.contains { ($0["name"] as? String)?.hasPrefix("7 procedures dropped") ?? false })
    }

    func testWritesAFileAndReportsOneThatCannotBeWritten() throws {
        let profiler = recordSample()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("trace.json")
        try profiler.writeChromeTrace(to: file)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(contentsOf: file)))

        let impossible = directory.appendingPathComponent("missing/dir/trace.json")
        XCTAssertThrowsError(try profiler.writeChromeTrace(to: impossible)) { error in
            let failure = error as? TraceFileError
            XCTAssertEqual(failure?.path, impossible.path)
            XCTAssertTrue("\(error)".contains("cannot write the trace file \(impossible.path)"), "\(error)")
        }
    }

    func testEscapesEveryControlCharacter() throws {
        let text = "a\"b\\c\nd\te\u{1}"
        let json = "\"\(ChromeTrace.escape(text))\""
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
        XCTAssertEqual(decoded, text)
    }
}

final class DependencyGraphTests: XCTestCase {
    func testDOTHasANodePerProcedureAnEdgePerDependencyAndAClusterPerGroup() {
        let download = TestProcedure(name: "download")
        let parse = TestProcedure(name: "parse")
        parse.addDependency(download)
        let store = TestProcedure(name: "store")
        let group = GroupProcedure(operations: [download, parse])
        group.name = "fetch"
        store.addDependency(group)
        let dot = DependencyGraph([store]).dot
        let id = { (procedure: Procedure) in procedure.instrumentationReference.id }

        XCTAssertTrue(dot.hasPrefix("digraph procedures {"))
        for name in ["download", "parse", "store", "fetch"] { XCTAssertTrue(dot.contains("label=\"\(name)\""), name) }
        XCTAssertTrue(dot.contains("n\(id(download)) -> n\(id(parse));"), dot)
        XCTAssertTrue(dot.contains("n\(id(group)) -> n\(id(store));"), dot)
        XCTAssertTrue(dot.contains("subgraph cluster_\(id(group))"), dot)
        XCTAssertFalse(dot.contains("subgraph cluster_\(id(store))"))
    }

    func testGraphFromAProfileColoursFailuresAndDashesProducts() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let product = TestProcedure(name: "product", error: TestError("x"))
        let producer = TestProcedure(name: "producer", produced: product)
        wait(for: producer, on: queue)
        wait(for: product)
        let dot = profiler.dependencyGraph().dot
        let ids = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0.identity.procedure.id) })
        XCTAssertTrue(dot.contains("n\(ids["producer"]!) -> n\(ids["product"]!) [style=dashed];"), dot)
        XCTAssertTrue(dot.contains("label=\"product\", color=red"), dot)
    }
}
