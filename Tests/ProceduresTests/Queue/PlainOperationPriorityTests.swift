import Foundation
import ProceduresTestSupport
import XCTest

@testable import Procedures

/// A plain `Operation` waiting for a slot is ordered by its own `queuePriority`, as on
/// Foundation's queue and as a procedure is: read when it becomes ready.
final class PlainOperationPriorityTests: XCTestCase {
    /// On a suspended queue of width 1, plain operations and procedures of mixed priorities run
    /// highest first once it resumes, FIFO within a priority.
    func testPlainOperationsAndProceduresRunByPriorityOnAQueue() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let order = LockedBox<[String]>([])
        for operation in Self.mixedOperations(recordingIn: order) { queue.addOperation(operation) }
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(order.value, Self.expectedOrder)
    }

    /// In a group of width 1, plain children and procedure children of mixed priorities run
    /// highest first, FIFO within a priority.
    func testPlainOperationsAndProceduresRunByPriorityInAGroup() {
        let order = LockedBox<[String]>([])
        let group = GroupProcedure(operations: Self.mixedOperations(recordingIn: order))
        group.maxConcurrentOperationCount = 1
        let finished = expectation(description: "group finished")
        group.addDidFinishBlockObserver { _, _ in finished.fulfill() }
        ProcedureQueue().addOperation(group)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(order.value, Self.expectedOrder)
    }

    /// A plain operation's priority is the one it has when it becomes ready: raised after it
    /// was added, while it still waited for a dependency, it goes ahead of an earlier one.
    func testAPlainOperationsPriorityChangedBeforeItIsReadyCounts() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let order = LockedBox<[String]>([])
        let earlier = BlockOperation { order.mutate { $0.append("earlier") } }
        let raised = BlockOperation { order.mutate { $0.append("raised") } }
        let dependency = BlockProcedure {}
        raised.addDependency(dependency)
        queue.addOperation(earlier)
        queue.addOperation(raised)
        XCTAssertEqual(queue.scheduler.counts.waiting, 1, "only the operation without a dependency is ready")
        raised.queuePriority = .veryHigh
        dependency.start()  // by hand: it finishes on this thread, which submits `raised`
        XCTAssertEqual(queue.scheduler.counts.waiting, 2)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(order.value, ["raised", "earlier"])
    }

    private static let expectedOrder = ["plain very high", "procedure high", "procedure normal", "plain normal", "plain low", "procedure very low"]

    /// Added in an order that no priority follows, each plain operation or procedure recording
    /// its name when it runs.
    private static func mixedOperations(recordingIn order: LockedBox<[String]>) -> [Operation] {
        let plan: [(String, Bool, Operation.QueuePriority)] = [
            ("plain low", true, .low), ("procedure normal", false, .normal),
            ("procedure very low", false, .veryLow), ("plain very high", true, .veryHigh),
            ("plain normal", true, .normal), ("procedure high", false, .high),
        ]
        return plan.map { name, plain, priority in
            let record: @Sendable () -> Void = { order.mutate { $0.append(name) } }
            let operation: Operation = plain ? BlockOperation(block: record) : BlockProcedure(block: record)
            operation.queuePriority = priority
            return operation
        }
    }
}
