import Foundation
import XCTest

/// Reading and checking a pipeline is linear in the size of its file: files with 100,000
/// values or steps are read whole, every problem in them reported at its place, well within
/// the harness's limit for one run (the benchmarks' C1 and C1v rows measure how the time grows).
final class LargePipelineTests: StepsTestCase {
    /// `count` elements `1` joined by commas.
    private func ones(_ count: Int) -> String {
        Array(repeating: "1", count: count).joined(separator: ",")
    }

    func testAnUnknownFieldWithManyValuesIsReportedOnce() throws {
        let path = try write(#"{"steps":[{"name":"a","run":"true"}],"x":["# + ones(100_000) + "]}")
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 2, result.errors)
        XCTAssertEqual(result.errorLines, ["\(path):1:42: the pipeline: unknown field 'x'; known fields: steps, jobs, env"])
    }

    func testEveryStepThatIsNotAnObjectIsReportedAtItsPlace() throws {
        let count = 200_000
        let path = try write(#"{"steps":["# + ones(count) + "]}")
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 2)
        let lines = result.errorLines
        XCTAssertEqual(lines.count, count)
        XCTAssertEqual(lines.first, "\(path):1:11: steps[0]: expected an object, found a number")
        XCTAssertEqual(lines.last, "\(path):1:\(11 + 2 * (count - 1)): steps[\(count - 1)]: expected an object, found a number")
    }

    func testAChainOfManyStepsIsPlannedInOrder() throws {
        let count = 100_000
        var steps = [#"{"name":"s0","run":"true"}"#]
        for index in 1..<count { steps.append(#"{"name":"s\#(index)","needs":["s\#(index - 1)"],"run":"true"}"#) }
        let path = try write(#"{"steps":["# + steps.joined(separator: ",\n") + "]}")
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 0, String(result.errors.prefix(1_000)))
        let lines = result.output.split(separator: "\n")
        XCTAssertEqual(lines.first, "Plan: \(count) step(s), at most \(ProcessInfo.processInfo.activeProcessorCount) at a time; each stage starts once the steps it needs have succeeded.")
        // A line per step, `stage  name  $ command`, each after the line of the step it needs.
        let stages = lines.filter { $0.contains(" $ ") }.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        XCTAssertEqual(stages, (0..<count).map { "\($0 + 1) s\($0)" })
    }

    func testEveryMisspeltNeedIsReported() throws {
        let count = 20_000
        var steps: [String] = []
        for index in 0..<count { steps.append(#"{"name":"step\#(index)","needs":["missing\#(index)"],"run":"true"}"#) }
        let path = try write(#"{"steps":["# + steps.joined(separator: ",\n") + "]}")
        let result = try run([path, "--dry-run"])
        XCTAssertEqual(result.status, 2)
        let lines = result.errorLines
        XCTAssertEqual(lines.count, count)
        XCTAssertEqual(lines.last, "\(path):\(count):\(25 + String(count - 1).count): step 'step\(count - 1)': field 'needs': no step is named 'missing\(count - 1)'")
    }
}
