import Foundation
import ProceduresProcess
import ProceduresTesting
import XCTest

// The process snippet of Documentation/Observability.md (a program's progress), compiled and run.
final class ObservabilityGuideProcessExamples: XCTestCase {
    func testAProgramsOutputLines() {
        let build = ProcessProcedure(
            executable: "/bin/sh", arguments: ["-c", "echo 1/2; echo 2/2"], standardOutput: .lines)
        build.reportProgress { line in
            let numbers = line.split(separator: "/").compactMap { Int64($0) }
            return numbers.count == 2 ? ProgressUnits(completed: numbers[0], of: numbers[1]) : nil
        }
        wait(for: build)
        XCTAssertEqual(build.currentProgress.fractionCompleted, 1)
        XCTAssertEqual(build.progress.totalUnitCount, 2)
    }
}
