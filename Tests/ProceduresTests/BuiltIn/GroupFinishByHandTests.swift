import Foundation
import ProceduresTesting
import XCTest

/// A group finishes when its last child does; `finish()` from outside is reported and ignored.
final class GroupFinishByHandTests: XCTestCase {
    private var previousHandler: (@Sendable (ProcedureMisuse) -> Void)?

    override func setUp() { previousHandler = ProcedureMisuse.handler }
    override func tearDown() { ProcedureMisuse.handler = previousHandler! }

    func testFinishOnARunningGroupIsIgnoredAndReported() {
        let child = TestProcedure(name: "slow child", delay: 0.2)
        let group = GroupProcedure(operations: [child])
        let reports = LockedBox<[ProcedureMisuse.Kind]>([])
        ProcedureMisuse.handler = { report in
            if report.subject == ObjectIdentifier(group) { reports.mutate { $0.append(report.kind) } }
        }
        let started = expectation(description: "group executing")
        group.addDidExecuteBlockObserver { _ in started.fulfill() }
        ProcedureQueue().addOperation(group)
        wait(for: [started], timeout: 10)
        group.finish()
        XCTAssertEqual(reports.value, [.finishedByHand])
        XCTAssertFalse(group.isFinished, "the call was ignored")
        wait(for: group)
        XCTAssertTrue(child.isFinished, "the group still finished only after its child")
        assertProcedureFinished(group)
    }
}
