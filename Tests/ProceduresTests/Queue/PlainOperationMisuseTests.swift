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

    /// A queue and a group report a second add of a plain operation alike, each naming itself.
    func testAPlainOperationAddedTwiceIsReportedNamingItsOwner() {
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let queue = ProcedureQueue()
        queue.name = "Uploads"
        queue.isSuspended = true  // the first add stays unfinished, so the second is a second add
        let queued = BlockOperation {}
        queue.addOperation(queued)
        queue.addOperation(queued)

        let group = GroupProcedure(operations: [])
        group.name = "Batch"
        let child = BlockOperation {}
        group.addChild(child)
        group.addChild(child)

        XCTAssertEqual(misuse.reports(about: queued).map(\.message), [
            "an operation was added twice to Uploads; the second add was ignored."
        ])
        XCTAssertEqual(misuse.reports(about: child).map(\.message), [
            "an operation was added twice to Batch; the second add was ignored."
        ])
        queue.isSuspended = false
        wait(for: group)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(queued.isFinished)
        XCTAssertTrue(child.isFinished)
    }
}
