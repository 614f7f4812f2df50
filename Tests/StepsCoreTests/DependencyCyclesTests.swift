import XCTest
@testable import StepsCore

/// The cycles among steps, in process: each ring of steps that wait for each other is found
/// once, named by a cycle through its first step, whatever the shape or size of the graph.
final class DependencyCyclesTests: XCTestCase {
    func testEachComponentIsOneCycleFromItsFirstNode() {
        // 0 -> 2 -> 1 -> 0, 3 -> 3, and 4 -> 5 -> 4 with 6 waiting on it from outside.
        let edges = [[2], [0], [1], [3], [5], [4], [4]]
        XCTAssertEqual(DependencyCycles.find(edges: edges), [
            .init(path: [0, 2, 1, 0], others: []),
            .init(path: [3, 3], others: []),
            .init(path: [4, 5, 4], others: []),
        ])
    }

    func testAComponentOfSeveralCyclesNamesTheShortestThroughItsFirstNodeAndTheRest() {
        // 0 <-> 1, 1 -> 2 -> 3 -> 1: one component of four.
        let edges = [[1], [2, 0], [3], [1]]
        XCTAssertEqual(DependencyCycles.find(edges: edges), [.init(path: [0, 1, 0], others: [2, 3])])
    }

    func testAGraphWithoutCyclesHasNone() {
        XCTAssertEqual(DependencyCycles.find(edges: [[], [0], [0, 1], [2, 1, 0]]), [])
    }

    func testALongRingIsFoundWithoutRecursion() {
        let count = 200_000
        let edges = (0..<count).map { [($0 + 1) % count] }
        let cycles = DependencyCycles.find(edges: edges)
        XCTAssertEqual(cycles.count, 1)
        XCTAssertEqual(cycles.first?.path.count, count + 1)
        XCTAssertEqual(cycles.first?.path.prefix(3), [0, 1, 2])
        XCTAssertEqual(cycles.first?.others, [])
    }

    func testEveryCycleOfManyIsReportedOnce() throws {
        // 1,000 separate pairs that need each other.
        var steps: [String] = []
        for pair in 0..<1_000 {
            steps.append(#"{"name":"a\#(pair)","run":"x","needs":["b\#(pair)"]}"#)
            steps.append(#"{"name":"b\#(pair)","run":"x","needs":["a\#(pair)"]}"#)
        }
        let text = #"{"steps":["# + steps.joined(separator: ",\n") + "]}"
        do throws(PipelineError) {
            _ = try PipelineFile.parse(Data(text.utf8), named: "p.json", directory: URL(fileURLWithPath: "/"))
            XCTFail("accepted")
        } catch {
            XCTAssertEqual(error.lines.count, 1_000)
            XCTAssertEqual(error.lines.last, "p.json:1999:34: cycle in needs: a999 -> b999 -> a999")
        }
    }
}
