import Foundation
import ProceduresTesting
import XCTest

/// A group that counts calls to its `execute()` override.
final class CountingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: the counter has its own lock.
    let executions = LockedBox(0)

    override func execute() {
        executions.mutate { $0 += 1 }
        super.execute()
    }
}

/// Helpers for the group tests: children the test controls and a group started on its queue.
extension XCTestCase {
    /// Children that finish only when cancelled, and an expectation fulfilled once all of
    /// them are executing.
    func runningChildren(_ count: Int, prefix: String = "child") -> ([WaitForCancelProcedure], XCTestExpectation) {
        let executing = expectation(description: "\(count) \(prefix)(ren) executing")
        executing.expectedFulfillmentCount = count
        let children = (0..<count).map { i -> WaitForCancelProcedure in
            let child = WaitForCancelProcedure(name: "\(prefix) \(i)")
            child.addDidExecuteBlockObserver { _ in executing.fulfill() }
            return child
        }
        return (children, executing)
    }

    /// Records, at the group's will-finish, the names of its children that have not finished.
    func unfinishedChildrenWhenFinishing(_ group: GroupProcedure) -> LockedBox<[String]?> {
        let box = LockedBox<[String]?>(nil)
        group.addWillFinishBlockObserver { group, _ in
            box.mutate { $0 = group.children.filter { !$0.isFinished }.map { $0.name ?? "?" } }
        }
        return box
    }

    /// Adds `group` to a new queue and waits until `executing` is fulfilled; the group must
    /// not have finished by then.
    func startGroup(_ group: GroupProcedure, waitingFor executing: XCTestExpectation) -> ProcedureQueue {
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [executing], timeout: 10)
        XCTAssertFalse(group.isFinished)
        return queue
    }
}
