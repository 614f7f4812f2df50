import Foundation
import ProceduresTesting
import XCTest

/// A future as a procedure: `FutureProcedure`.
final class FutureProcedureTests: XCTestCase {
    /// An expectation fulfilled when a cancel request reaches `promise`, which answers it with
    /// `answer`.
    private func expectCancelRequest(on promise: Promise<Int>, answering answer: CancelResponse<Int>) -> XCTestExpectation {
        let asked = expectation(description: "cancel requested")
        promise.onRequestCancel { _ in
            asked.fulfill()
            return answer
        }
        return asked
    }

    func testFinishesWithTheFuturesValue() {
        let promise = Promise<Int>()
        let procedure = FutureProcedure(promise.future)
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        XCTAssertFalse(procedure.isFinished, "waits for the future")
        promise.succeed(5)
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output, 5)
    }

    func testAlreadyCompletedFuture() {
        let procedure = FutureProcedure(Future(value: "now"))
        wait(for: procedure)
        XCTAssertEqual(procedure.output, "now")
    }

    func testFailedFutureFailsTheProcedure() {
        let promise = Promise<Int>()
        let procedure = FutureProcedure(promise.future)
        ProcedureQueue().addOperation(procedure)
        promise.fail(TestError("e6"))
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(procedure.errors.first as? TestError, TestError("e6"))
        XCTAssertNil(procedure.output)
    }

    func testCancelledFutureCancelsTheProcedure() {
        let promise = Promise<Int>()
        let procedure = FutureProcedure(promise.future)
        runUntilExecuting(procedure)
        promise.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertNil(procedure.output)
    }

    func testAsADependency() {
        let promise = Promise<Int>()
        let source = FutureProcedure(promise.future)
        let after = TestProcedure(name: "after")
        after.addDependency(source)
        let queue = ProcedureQueue()
        queue.addOperations([source, after], waitUntilFinished: false)
        XCTAssertFalse(after.didExecute, "waits for the future")
        promise.succeed(1)
        wait(for: source, after)
        assertProcedureFinished(after)
        XCTAssertEqual(after.executeCount, 1)
    }

    func testAsTheSourceOfAnInjectedResult() {
        let promise = Promise<Int>()
        let source = FutureProcedure(promise.future)
        let double = TransformProcedure { (x: Int) in x * 2 }
        double.injectResult(from: source)
        ProcedureQueue().addOperations([source, double], waitUntilFinished: false)
        promise.succeed(21)
        wait(for: double)
        XCTAssertEqual(double.output, 42)
    }

    func testAsAGroupChild() {
        let promise = Promise<Int>()
        let child = FutureProcedure(promise.future)
        let sibling = TestProcedure(name: "sibling")
        let siblingDone = expectation(description: "sibling finished")
        sibling.addDidFinishBlockObserver { _, _ in siblingDone.fulfill() }
        let group = GroupProcedure(operations: [child, sibling])
        ProcedureQueue().addOperation(group)
        // Not `wait(for: sibling)`: that helper would add the not-yet-started child to a
        // queue of its own (see ProcedureFutureCancelTests).
        wait(for: [siblingDone], timeout: 10)
        XCTAssertFalse(group.isFinished, "the group waits for the future")
        promise.fail(TestError("e2"))
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(group.errors.first as? TestError, TestError("e2"))
    }

    func testCancellingTheGroupReachesTheFuture() {
        let promise = Promise<Int>()
        let asked = expectCancelRequest(on: promise, answering: .complete(.cancelled))
        let child = FutureProcedure(promise.future)
        let group = GroupProcedure(operations: [child])
        runUntilExecuting(child, inside: group)
        group.cancel()
        wait(for: [asked], timeout: 10)
        wait(for: group)
        assertProcedureCancelled(group)
        assertProcedureCancelled(child)
    }

    // MARK: Cancelling the procedure asks the future

    func testCancellingTheProcedureSendsACancelRequest() {
        let promise = Promise<Int>()
        let options = LockedBox<[CancelRequestOptions]>([])
        promise.onRequestCancel { requested in
            options.mutate { $0.append(requested) }
            return .complete(.cancelled)
        }
        let procedure = FutureProcedure(promise.future)
        runUntilExecuting(procedure)
        procedure.cancel()
        wait(for: procedure)
        XCTAssertEqual(options.value, [[]], "one plain request")
        XCTAssertEqual(promise.future.result?.isCancelled, true)
        assertProcedureCancelled(procedure)
    }

    func testAPromiseAnsweringContinueFinishesTheProcedureWhenItCompletes() {
        let promise = Promise<Int>()
        let asked = expectCancelRequest(on: promise, answering: .continue)
        let procedure = FutureProcedure(promise.future)
        runUntilExecuting(procedure)
        procedure.cancel()
        wait(for: [asked], timeout: 10)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertFalse(procedure.isFinished, "a cancelled FutureProcedure waits for its future")
        promise.cancel()  // the wrapped work confirms
        wait(for: procedure)
        assertProcedureCancelled(procedure)
    }

    func testAFutureIgnoringCancellationStillDecidesWhenTheProcedureFinishes() {
        let promise = Promise<Int>()  // no onRequestCancel: requests are ignored
        let procedure = FutureProcedure(promise.future)
        runUntilExecuting(procedure)
        procedure.cancel()
        XCTAssertFalse(procedure.isFinished)
        promise.succeed(1)
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertNil(procedure.output, "the late value is not an output of a cancelled procedure")
    }

    func testCancelledBeforeItStartsAsksTheFutureAndNeverWaits() {
        let promise = Promise<Int>()
        let asked = expectCancelRequest(on: promise, answering: .continue)
        let procedure = FutureProcedure(promise.future)
        procedure.cancel()
        wait(for: [asked], timeout: 10)
        wait(for: procedure)  // finishes without the future completing
        assertProcedureCancelled(procedure)
        XCTAssertFalse(promise.future.isCompleted)
    }

    func testTheProcedureIsOneConsumerOfASharedFuture() {
        let promise = Promise<Int>()
        let asked = LockedBox(0)
        promise.onRequestCancel { _ in
            asked.mutate { $0 += 1 }
            return .complete(.cancelled)
        }
        let other = promise.future.map(context: .immediate) { $0 }  // another consumer
        let procedure = FutureProcedure(promise.future)
        let procedureAsked = expectation(description: "the procedure's did-cancel ran")
        procedure.addDidCancelBlockObserver { _, _ in procedureAsked.fulfill() }
        runUntilExecuting(procedure)
        procedure.cancel()
        // The cancel may be delivered on the worker still finishing its execute event: the
        // procedure's request goes out from did-cancel, which observers follow.
        wait(for: [procedureAsked], timeout: 10)
        XCTAssertEqual(asked.value, 0, "`other` still wants the value")
        other.cancel()
        XCTAssertEqual(asked.value, 1, "every consumer has asked")
        wait(for: procedure)
        assertProcedureCancelled(procedure)
    }
}
