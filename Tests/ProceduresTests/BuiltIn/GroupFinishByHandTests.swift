import Foundation
import ProceduresTesting
import XCTest

/// A group finishes when its last child does; `finish()` from outside is reported and ignored.
final class GroupFinishByHandTests: ProcedureTestCase {
    func testFinishOnARunningGroupIsIgnoredAndReported() {
        let child = makeGate("child")  // finishes only when the test says so
        let group = GroupProcedure(operations: [child])
        runUntilExecuting(group)
        group.finish()
        XCTAssertEqual(misuse.kinds(about: group), [.finishedByHand])
        XCTAssertFalse(group.isFinished, "the call was ignored")
        child.finish()
        wait(for: group)
        XCTAssertTrue(child.isFinished, "the group still finished only after its child")
        assertProcedureFinished(group)
    }
}
