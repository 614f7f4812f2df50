import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// A condition that never answers must show up in `wait(for:)`'s timeout message.
final class StuckConditionReportTests: XCTestCase {
    private let captured = LockedBox<[String]?>(nil)

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let swallowed = captured.mutate { messages -> Bool in
            guard messages != nil else { return false }
            messages!.append(description)
            return true
        }
        if !swallowed {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testWaitTimeoutNamesTheConditionThatNeverAnswered() {
        let condition = ManualCondition()
        condition.name = "NeverAnswers"
        let procedure = TestProcedure(name: "stuck")
        procedure.addCondition(condition)
        captured.mutate { $0 = [] }
        wait(for: procedure, timeout: 0.2)
        let messages = captured.mutate { messages -> [String] in
            defer { messages = nil }
            return messages ?? []
        }
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(
            messages.first?.contains("stuck: waiting for condition NeverAnswers to answer") == true,
            "\(messages)")
        condition.complete(.satisfied)
        wait(for: procedure)
    }
}
