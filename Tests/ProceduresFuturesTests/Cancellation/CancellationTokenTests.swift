import XCTest
@testable import ProceduresFutures

/// Requests and tokens: what the couchdeveloper/Cancellation library guarantees.
final class CancellationTokenTests: XCTestCase {
    final class Task: Cancelable, @unchecked Sendable {
        // @unchecked: `cancels` is only touched under `lock`.
        private let lock = NSLock()
        private var cancels = 0
        func cancel() { lock.lock(); cancels += 1; lock.unlock() }
        var cancelCount: Int { lock.lock(); defer { lock.unlock() }; return cancels }
    }

    func testNewRequestIsPending() {
        let request = CancellationRequest()
        XCTAssertFalse(request.isCancellationRequested)
        XCTAssertFalse(request.token.isCancelled)
        XCTAssertFalse(request.token.isCompleted)
    }

    func testCancelCompletesTheTokenOnceAndRunsHandlersOnce() {
        let request = CancellationRequest()
        let log = EventLog<String>()
        request.token.onCancel { log.append("cancel") }
        request.token.onComplete { log.append("complete \($0)") }
        request.cancel()
        request.cancel()
        XCTAssertTrue(request.token.isCancelled)
        XCTAssertTrue(request.token.isCompleted)
        XCTAssertTrue(request.isCancellationRequested)
        XCTAssertEqual(log.all, ["cancel", "complete true"], "in registration order, once")
    }

    func testReleasedRequestCompletesItsTokenAsNotCancelledAndReleasesHandlers() {
        var request: CancellationRequest? = CancellationRequest()
        let token = request!.token
        let log = EventLog<String>()
        weak var weakTracked: Tracked?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            token.onCancel { _ = tracked; log.append("cancel") }
            token.onComplete { log.append("complete \($0)") }
        }
        XCTAssertNotNil(weakTracked)
        request = nil
        XCTAssertTrue(token.isCompleted)
        XCTAssertFalse(token.isCancelled)
        XCTAssertEqual(log.all, ["complete false"])
        XCTAssertNil(weakTracked, "handlers released on completion")
    }

    func testCancelledThenReleasedStaysCancelled() {
        var request: CancellationRequest? = CancellationRequest()
        let token = request!.token
        request!.cancel()
        request = nil
        XCTAssertTrue(token.isCancelled)
    }

    func testLateHandlersRunAtOnceForTheirOutcomeOnly() {
        let request = CancellationRequest()
        request.cancel()
        let log = EventLog<String>()
        request.token.onCancel { log.append("cancel") }
        request.token.onComplete { log.append("complete \($0)") }
        CancellationToken.none.onCancel { log.append("never") }
        CancellationToken.none.onComplete { log.append("none \($0)") }
        XCTAssertEqual(log.all, ["cancel", "complete true", "none false"])
    }

    func testRegisteredCancelableIsHeldWeaklyAndCancelledOnce() {
        let request = CancellationRequest()
        let task = Task()
        weak var weakGone: Task?
        request.token.register(task)
        do {
            let gone = Task()
            weakGone = gone
            request.token.register(gone)
        }
        XCTAssertNil(weakGone, "registering does not keep it alive")
        request.cancel()
        request.cancel()
        XCTAssertEqual(task.cancelCount, 1)
    }

    func testRegisteredCancelableIsNotCancelledWhenTheRequestGoesAway() {
        var request: CancellationRequest? = CancellationRequest()
        let task = Task()
        request!.token.register(task)
        request = nil
        XCTAssertEqual(task.cancelCount, 0)
    }

    func testNoneIsNeverCancelled() {
        XCTAssertFalse(CancellationToken.none.isCancelled)
        XCTAssertTrue(CancellationToken.none.isCompleted)
        let task = Task()
        CancellationToken.none.register(task)
        XCTAssertEqual(task.cancelCount, 0)
    }

    func testHandlersRunOnTheCancellingThreadAfterTheLockIsReleased() {
        let request = CancellationRequest()
        let done = expectation(description: "handler re-entered the token")
        request.token.onCancel {
            // Re-entering would deadlock if the handler ran under the token's lock.
            XCTAssertTrue(request.token.isCancelled)
            request.token.onCancel { done.fulfill() }
        }
        DispatchQueue.global().async { request.cancel() }
        wait(for: [done], timeout: 5)
    }
}
