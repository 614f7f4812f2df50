import Foundation
import ProceduresTesting
import XCTest

/// corelibs stops the process when a finished or running plain operation is enqueued; a
/// ProcedureQueue reports it and carries on.
final class PlainOperationMisuseTests: XCTestCase {
    func testAFinishedPlainOperationIsReportedNotEnqueued() {
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let operation = BlockOperation {}
        operation.start()  // finished, synchronously, outside any queue
        XCTAssertTrue(operation.isFinished)
        let queue = ProcedureQueue()
        queue.addOperation(operation)
        XCTAssertEqual(misuse.kinds(about: operation), [.addedAfterFinishing])
        XCTAssertEqual(queue.operationCount, 0)

        let group = GroupProcedure(operations: [operation])
        XCTAssertEqual(misuse.kinds(about: operation), [.addedAfterFinishing, .addedAfterFinishing])
        XCTAssertTrue(group.children.isEmpty, "the group did not adopt it, so it cannot wait for it")
        wait(for: group)
        assertProcedureFinished(group)
    }
}
