import Foundation
import ProceduresTestSupport
import XCTest

/// The inputs the fuzzer (Fuzz/, `make fuzz`) keeps as regressions, and the example
/// pipelines it starts from, through the real `steps`: each is a plan or located problems,
/// never a crash and never a message that is not written for people.
final class FuzzRegressionTests: StepsTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryFuzzRegressionIsAPlanOrLocatedProblems() throws {
        var inputs: [URL] = []
        for folder in ["Fuzz/regressions", "Examples"] { inputs += try PipelineFiles.all(in: root.appendingPathComponent(folder)) }
        XCTAssertGreaterThan(inputs.count, 10)
        for input in inputs {
            let result = try run([input.path, "--dry-run"])
            XCTAssertTrue([0, 2].contains(result.status), "\(input.lastPathComponent): status \(result.status)\n\(result.errors)")
            if result.status == 0 {
                XCTAssertTrue(result.output.hasPrefix("Plan: "), "\(input.lastPathComponent): \(result.output)")
                continue
            }
            XCTAssertFalse(result.errorLines.isEmpty, input.lastPathComponent)
            // A marker the input itself contains may be quoted (an unknown field's name).
            let text = String(decoding: try Data(contentsOf: input), as: UTF8.self)
            let dumps = ["(location:", "FoundationEssentials", "Optional(", "DecodingError"].filter { !text.contains($0) }
            for line in result.errorLines {
                // One line each (a line break in a quoted name would leave a line without its place), no control characters.
                XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                    "\(input.lastPathComponent): a control character in \(line.debugDescription)")
                XCTAssertNotNil(line.range(of: "^" + NSRegularExpression.escapedPattern(for: input.path) + ":[0-9]+:[0-9]+: ", options: .regularExpression),
                    "\(input.lastPathComponent): not located: \(line)")
                for dump in dumps {
                    XCTAssertFalse(line.contains(dump), "\(input.lastPathComponent): \(line)")
                }
            }
        }
    }
}
