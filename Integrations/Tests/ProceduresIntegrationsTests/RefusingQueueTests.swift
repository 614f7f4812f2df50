import Foundation
import Procedures
@testable import ProceduresLifecycle
import ProceduresTesting
import XCTest

/// The refusal's one race, made deterministic: an add accepted just before the refusal has
/// not reached the queue yet when the refusal comes.
final class RefusingQueueTests: XCTestCase {
    /// Holds the add of `held` between its acceptance and its landing in the queue.
    private final class HoldingQueue: RefusingQueue, @unchecked Sendable {
        // @unchecked: `held`, `holding` and `release` are immutable (semaphores are thread-safe).
        let held: Operation
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        init(holding held: Operation) {
            self.held = held
            super.init()
        }

        override func land(_ operation: Operation) {
            if operation === held {
                holding.signal()
                release.wait()  // only the test's own thread waits here
            }
            super.land(operation)
        }
    }

    func testARefusalWaitsForTheAddsAlreadyAcceptedBeforeItsBarrier() {
        let accepted = TestProcedure(name: "accepted")
        let queue = HoldingQueue(holding: accepted)
        Thread { queue.addOperation(accepted) }.start()
        queue.holding.wait()  // `accepted` is past the check, not yet in the queue

        let landed = expectation(description: "the accepted add landed")
        let calledAtOnce = LockedFlag()
        queue.refuse {
            calledAtOnce.set()
            landed.fulfill()
        }
        XCTAssertFalse(calledAtOnce.value, "the refusal did not wait for the add in progress")
        let late = TestProcedure(name: "late")
        queue.addOperation(late)
        wait(for: late)
        XCTAssertEqual(late.errors.first as? ProcedureQueueServiceError, .shuttingDown)
        XCTAssertFalse(late.didExecute)

        queue.release.signal()
        wait(for: [landed], timeout: 10)
        wait(for: accepted)
        assertProcedureFinished(accepted)
    }
}

private final class LockedFlag: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored = false
    var value: Bool { lock.withLock { stored } }
    func set() { lock.withLock { stored = true } }
}
