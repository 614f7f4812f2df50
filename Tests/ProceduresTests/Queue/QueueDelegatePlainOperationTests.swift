import Foundation
import ProceduresTesting
import XCTest

/// Logs what a queue delegate hears about plain operations, by name.
private final class PlainOperationDelegate: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked: `log` lives in a LockedBox; `finished` is an expectation (thread-safe).
    let log = LockedBox<[String]>([])
    let finished: XCTestExpectation

    init(finished: XCTestExpectation) {
        self.finished = finished
    }

    func procedureQueue(_ queue: ProcedureQueue, willAdd operation: Operation) {
        log.mutate { $0.append("willAdd \(operation.name ?? "?")") }
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinish operation: Operation) {
        log.mutate { $0.append("didFinish \(operation.name ?? "?") finished=\(operation.isFinished)") }
        finished.fulfill()
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
        log.mutate { $0.append("didFinish procedure \(procedure.name ?? "?")") }
    }
}

/// ProcedureKit's queue delegate hears when plain operations finish, not only procedures;
/// corelibs runs every operation's `completionBlock`, which is how the queue learns of it.
final class QueueDelegatePlainOperationTests: XCTestCase {
    func testDelegateHearsWhenAPlainOperationFinishes() {
        let told = expectation(description: "told")
        let delegate = PlainOperationDelegate(finished: told)
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let operation = BlockOperation {}
        operation.name = "plain"
        queue.addOperation(operation)
        wait(for: [told], timeout: 10)
        XCTAssertEqual(delegate.log.value, ["willAdd plain", "didFinish plain finished=true"])
    }

    func testAnOperationsOwnCompletionBlockStillRunsFirst() {
        let told = expectation(description: "told")
        let delegate = PlainOperationDelegate(finished: told)
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let operation = BlockOperation {}
        operation.name = "plain"
        operation.completionBlock = { delegate.log.mutate { $0.append("own completion block") } }
        queue.addOperation(operation)
        wait(for: [told], timeout: 10)
        XCTAssertEqual(delegate.log.value, ["willAdd plain", "own completion block", "didFinish plain finished=true"])
    }

    func testEveryPlainOperationIsReportedOnceAndProceduresOnlyAsProcedures() {
        let count = 50
        let finished = expectation(description: "told")
        finished.expectedFulfillmentCount = count
        let delegate = PlainOperationDelegate(finished: finished)
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let procedure = BlockProcedure {}
        procedure.name = "procedure"
        var operations: [Operation] = [procedure]
        for index in 0..<count {
            let operation = BlockOperation {}
            operation.name = "plain \(index)"
            operations.append(operation)
        }
        queue.addOperations(operations, waitUntilFinished: false)
        wait(for: [finished], timeout: 10)
        wait(for: procedure)
        let finishes = delegate.log.value.filter { $0.hasPrefix("didFinish") }
        XCTAssertEqual(Set(finishes).count, count + 1, "\(finishes)")
        XCTAssertTrue(finishes.contains("didFinish procedure procedure"))
        XCTAssertFalse(finishes.contains("didFinish procedure finished=true"), "a procedure is reported as a procedure")
    }

    func testAQueueWithoutADelegateLeavesCompletionBlocksAlone() {
        let queue = ProcedureQueue()
        let operation = BlockOperation {}
        let ran = expectation(description: "own block ran")
        operation.completionBlock = { ran.fulfill() }
        queue.addOperation(operation)
        wait(for: [ran], timeout: 10)
    }
}
