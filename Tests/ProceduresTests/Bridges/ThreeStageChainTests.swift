import Foundation
import ProceduresTesting
import XCTest

/// Cancellation in each direction and at each stage of A → B → C composed with `flatMap`.
final class ThreeStageChainTests: XCTestCase {
    /// A → B → C, where B and C are created (and added) only when the previous stage succeeded.
    struct Chain {
        let a: Blocker<Int>
        let b: LockedBox<Blocker<Int>?>
        let c: LockedBox<Blocker<Int>?>
        let tail: Future<Int>
        let bCreated: XCTestExpectation
        let cCreated: XCTestExpectation

        init(queue: ProcedureQueue) {
            let a = Blocker<Int>("A")
            let b = LockedBox<Blocker<Int>?>(nil)
            let c = LockedBox<Blocker<Int>?>(nil)
            let bCreated = XCTestExpectation(description: "B created")
            let cCreated = XCTestExpectation(description: "C created")
            tail = queue.future(a)
                .flatMap { (x: Int) -> Future<Int> in
                    let stage = Blocker<Int>("B")
                    b.mutate { $0 = stage }
                    bCreated.fulfill()
                    return queue.future(stage).map(context: .immediate) { $0 + x }
                }
                .flatMap { (y: Int) -> Future<Int> in
                    let stage = Blocker<Int>("C")
                    c.mutate { $0 = stage }
                    cCreated.fulfill()
                    return queue.future(stage).map(context: .immediate) { $0 + y }
                }
            (self.a, self.b, self.c, self.bCreated, self.cCreated) = (a, b, c, bCreated, cCreated)
        }

        /// Waits until B runs; returns it.
        func runningB(_ test: XCTestCase) -> Blocker<Int> {
            test.wait(for: [a.executed], timeout: 10)
            a.release(1)
            test.wait(for: [bCreated], timeout: 10)
            let b = b.value!
            test.wait(for: [b.executed], timeout: 10)
            return b
        }

        /// Waits until C runs; returns B and C.
        func runningC(_ test: XCTestCase) -> (Blocker<Int>, Blocker<Int>) {
            let b = runningB(test)
            b.release(10)
            test.wait(for: [cCreated], timeout: 10)
            let c = c.value!
            test.wait(for: [c.executed], timeout: 10)
            return (b, c)
        }
    }

    func testCompletesWithTheLastValue() {
        let chain = Chain(queue: ProcedureQueue())
        let (_, c) = chain.runningC(self)
        c.release(100)
        XCTAssertEqual(waitForResult(of: chain.tail)?.value, 111)
    }

    // MARK: From the tail (token taken at the end of the chain)

    func testTokenFromTailWhileARuns() {
        let chain = Chain(queue: ProcedureQueue())
        let token = chain.tail.cancellationToken()
        wait(for: [chain.a.executed], timeout: 10)
        token.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
        wait(for: chain.a)
        assertProcedureCancelled(chain.a)
        XCTAssertNil(chain.b.value, "B is never created")
        XCTAssertNil(chain.c.value)
    }

    func testTokenFromTailWhileBRuns() {
        let chain = Chain(queue: ProcedureQueue())
        let token = chain.tail.cancellationToken()  // taken before B exists
        let b = chain.runningB(self)
        token.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
        wait(for: b)
        assertProcedureFinished(chain.a)
        assertProcedureCancelled(b)
        XCTAssertNil(chain.c.value, "C is never created")
    }

    func testTokenFromTailWhileCRuns() {
        let chain = Chain(queue: ProcedureQueue())
        let (b, c) = chain.runningC(self)
        chain.tail.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
        wait(for: c)
        assertProcedureFinished(chain.a)
        assertProcedureFinished(b)
        assertProcedureCancelled(c)
    }

    func testTokenFromTailAfterCompletionChangesNothing() {
        let chain = Chain(queue: ProcedureQueue())
        let (_, c) = chain.runningC(self)
        c.release(0)
        XCTAssertEqual(waitForResult(of: chain.tail)?.value, 11)
        chain.tail.cancel()
        XCTAssertEqual(chain.tail.result?.value, 11)
        assertProcedureFinished(c)
    }

    // MARK: From a procedure (cancelling a stage directly)

    func testCancellingAFromOutside() {
        let chain = Chain(queue: ProcedureQueue())
        wait(for: [chain.a.executed], timeout: 10)
        chain.a.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
        XCTAssertNil(chain.b.value)
    }

    func testCancellingABeforeItStarts() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let chain = Chain(queue: queue)
        chain.a.cancel()
        queue.isSuspended = false
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
        XCTAssertEqual(chain.a.executeCount, 0)
        XCTAssertNil(chain.b.value)
    }

    func testCancellingBFromOutside() {
        let chain = Chain(queue: ProcedureQueue())
        let b = chain.runningB(self)
        b.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
        XCTAssertNil(chain.c.value)
    }

    func testCancellingCFromOutside() {
        let chain = Chain(queue: ProcedureQueue())
        let (_, c) = chain.runningC(self)
        c.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
    }

    func testFailureInBFailsTheTail() {
        let chain = Chain(queue: ProcedureQueue())
        let b = chain.runningB(self)
        b.fail(TestError("e2"))
        XCTAssertEqual(waitForResult(of: chain.tail)?.typedError(TestError.self), TestError("e2"))
        XCTAssertNil(chain.c.value)
    }

    // MARK: Options

    func testThisFutureOnlyWithForceCancelsTheTailButLetsTheRunningStageFinish() {
        let chain = Chain(queue: ProcedureQueue())
        let b = chain.runningB(self)
        chain.tail.cancel(options: [.thisFutureOnly, .forceImmediately])
        XCTAssertEqual(chain.tail.result?.isCancelled, true)
        XCTAssertFalse(b.isCancelled, "the request stopped at the tail")
        b.release(2)
        wait(for: b)
        assertProcedureFinished(b)
    }

    func testThisFutureOnlyWithoutForceDoesNothingVisible() {
        let chain = Chain(queue: ProcedureQueue())
        wait(for: [chain.a.executed], timeout: 10)
        chain.tail.cancel(options: .thisFutureOnly)
        XCTAssertFalse(chain.a.isCancelled)
        XCTAssertFalse(chain.tail.isCompleted, "a derived future has no handler of its own")
        chain.a.cancel()
        XCTAssertEqual(waitForResult(of: chain.tail)?.isCancelled, true)
    }
}
