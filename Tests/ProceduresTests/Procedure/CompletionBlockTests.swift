import Foundation
import ProceduresTesting
import XCTest

/// `addCompletionBlock(_:)`: several blocks, each run once the procedure has finished, none of
/// them replacing the procedure's `completionBlock`.
final class CompletionBlockTests: XCTestCase {
    func testEveryCompletionBlockRunsOnceInTheOrderAdded() {
        let procedure = BlockProcedure {}
        let runs = LockedBox<[Int]>([])
        let ran = expectation(description: "three blocks ran")
        ran.expectedFulfillmentCount = 3
        for index in 1...3 {
            procedure.addCompletionBlock {
                runs.mutate { $0.append(index) }
                ran.fulfill()
            }
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(runs.value, [1, 2, 3])
    }

    func testCompletionBlocksRunAfterTheProcedureFinished() {
        let procedure = BlockProcedure {}
        let sawFinished = LockedBox<Bool?>(nil)
        let ran = expectation(description: "block ran")
        procedure.addCompletionBlock {
            sawFinished.mutate { $0 = procedure.isFinished }
            ran.fulfill()
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(sawFinished.value, true)
    }

    func testTheUsersCompletionBlockStillRuns() {
        let procedure = BlockProcedure {}
        let own = expectation(description: "completionBlock ran")
        let added = expectation(description: "added block ran")
        procedure.completionBlock = { own.fulfill() }
        procedure.addCompletionBlock { added.fulfill() }
        procedure.addCompletionBlock {}
        XCTAssertNotNil(procedure.completionBlock, "addCompletionBlock leaves completionBlock alone")
        ProcedureQueue().addOperation(procedure)
        wait(for: [own, added], timeout: 10)
    }

    func testCompletionBlocksRunForCancelledAndFailedProcedures() {
        let cancelled = BlockProcedure {}
        let failed = BlockProcedure { throw TestError("failed") }
        let ran = expectation(description: "both blocks ran")
        ran.expectedFulfillmentCount = 2
        cancelled.addCompletionBlock { ran.fulfill() }
        failed.addCompletionBlock { ran.fulfill() }
        cancelled.cancel()
        ProcedureQueue().addOperations([cancelled, failed], waitUntilFinished: false)
        wait(for: [ran], timeout: 10)
    }

    func testABlockAddedAfterTheFinishRunsOnce() {
        let procedure = BlockProcedure {}
        wait(for: procedure)
        let ran = expectation(description: "late block ran")
        ran.assertForOverFulfill = true
        procedure.addCompletionBlock { ran.fulfill() }
        wait(for: [ran], timeout: 10)
    }
}
