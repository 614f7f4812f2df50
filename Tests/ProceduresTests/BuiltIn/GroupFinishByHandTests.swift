import Foundation
import ProceduresTesting
import XCTest

/// A group finishes when its last child does; `finish()` from outside is reported and ignored.
final class GroupFinishByHandTests: MisuseRecordingTestCase {
    func testFinishOnARunningGroupIsIgnoredAndReported() {
        let child = TestProcedure(name: "slow child", delay: 0.2)
        let group = GroupProcedure(operations: [child])
        runUntilExecuting(group)
        group.finish()
        XCTAssertEqual(misuse.kinds(about: group), [.finishedByHand])
        XCTAssertFalse(group.isFinished, "the call was ignored")
        wait(for: group)
        XCTAssertTrue(child.isFinished, "the group still finished only after its child")
        assertProcedureFinished(group)
    }
}
