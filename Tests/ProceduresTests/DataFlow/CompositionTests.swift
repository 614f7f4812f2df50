import Foundation
import ProceduresTesting
import XCTest

/// `ComposedProcedure`, `GatedProcedure`, `IgnoreErrorsProcedure`.
final class CompositionTests: MisuseRecordingTestCase {
    func testComposedRunsAPlainOperationAndGivesItObservers() {
        let ran = LockedBox(false)
        let plain = BlockOperation { ran.mutate { $0 = true } }
        let composed = ComposedProcedure(plain)
        let observed = LockedBox(false)
        composed.addDidFinishBlockObserver { _, _ in observed.mutate { $0 = plain.isFinished } }
        wait(for: composed)
        assertProcedureFinished(composed)
        XCTAssertTrue(ran.value)
        XCTAssertTrue(observed.value, "the observer runs after the wrapped operation finished")
        XCTAssertTrue(composed.operation === plain)
    }

    func testAConditionOnComposedKeepsAPlainOperationFromRunning() {
        let ran = LockedBox(false)
        let composed = ComposedProcedure(BlockOperation { ran.mutate { $0 = true } })
        composed.addCondition(FalseCondition())
        wait(for: composed)
        assertProcedureCancelled(composed, withErrors: true)
        XCTAssertFalse(ran.value, "a plain Operation gets a condition through the composed procedure")
        XCTAssertTrue(composed.operation.isCancelled)
    }

    func testComposedHasTheOutputOfTheProcedureItWraps() {
        let composed = ComposedProcedure(ResultProcedure { 42 })
        let future = ProcedureQueue().future(composed)
        wait(for: composed)
        XCTAssertEqual(composed.output, 42)
        XCTAssertEqual(future.result?.value, 42)
    }

    func testComposedForwardsItsInjectedInput() {
        let source = ResultProcedure { 20 }
        let composed = ComposedProcedure(TransformProcedure { (x: Int) in x + 1 })
        composed.injectResult(from: source)
        wait(for: source, composed)
        XCTAssertEqual(composed.input, 20)
        XCTAssertEqual(composed.output, 21)
    }

    func testComposedTakesTheErrorsOfTheOperation() {
        let error = TestError("wrapped")
        let composed = ComposedProcedure(ResultProcedure<Int> { throw error })
        wait(for: composed)
        assertProcedureFinishedWithErrors(composed, count: 1)
        XCTAssertEqual(composed.errors.first as? TestError, error)
        XCTAssertNil(composed.output)
    }

    func testCancellingComposedBeforeItIsEnqueuedCancelsTheOperationAtOnce() {
        let wrapped = TestProcedure()
        let didCancel = expectation(description: "the wrapped procedure's did-cancel observer ran")
        wrapped.addDidCancelBlockObserver { _, _ in didCancel.fulfill() }
        let composed = ComposedProcedure(wrapped)
        composed.cancel()
        XCTAssertTrue(composed.isCancelled)
        XCTAssertTrue(wrapped.isCancelled, "cancelled by the time cancel() returns, not when the group starts")
        wait(for: composed)
        wait(for: [didCancel], timeout: 10)
        assertProcedureCancelled(composed)
        XCTAssertFalse(wrapped.didExecute)
    }

    func testCancellingComposedCancelsTheOperation() {
        let blocker = Blocker<Int>("wrapped")
        let composed = ComposedProcedure(blocker)
        ProcedureQueue().addOperation(composed)
        wait(for: [blocker.executed], timeout: 10)
        composed.cancel()
        wait(for: composed)
        assertProcedureCancelled(composed)
        XCTAssertTrue(blocker.isCancelled)
        XCTAssertNil(composed.output)
    }

    func testAnOpenGateRunsTheOperation() {
        let gated = GatedProcedure(ResultProcedure { "ran" }) { true }
        wait(for: gated)
        assertProcedureFinished(gated)
        XCTAssertEqual(gated.output, "ran")
    }

    func testAClosedGateCancelsTheOperationAndSucceeds() {
        let ran = LockedBox(false)
        let operation = BlockProcedure { ran.mutate { $0 = true } }
        let gated = GatedProcedure(operation) { false }
        wait(for: gated)
        assertProcedureFinished(gated)
        XCTAssertFalse(ran.value)
        XCTAssertTrue(operation.isCancelled)
    }

    func testAClosedGateLeavesAnOutputProcedureWithoutOutput() {
        let gated = GatedProcedure(ResultProcedure { 1 }) { false }
        let future = ProcedureQueue().future(gated)
        wait(for: gated)
        XCTAssertNil(gated.output)
        guard case .noOutput = future.result?.error as? ProcedureError else {
            return XCTFail("expected noOutput, got \(String(describing: future.result))")
        }
    }

    func testTheGateIsAskedAfterTheDependenciesFinish() {
        let flag = LockedBox(false)
        let setFlag = BlockProcedure { flag.mutate { $0 = true } }
        let gated = GatedProcedure(ResultProcedure { "ran" }) { flag.value }
        gated.addDependency(setFlag)
        wait(for: setFlag, gated)
        XCTAssertEqual(gated.output, "ran")
    }

    func testAGateThatThrowsFailsWithItsErrorWithoutRunningTheOperation() {
        let error = TestError("gate")
        let ran = LockedBox(false)
        let gated = GatedProcedure(BlockProcedure { ran.mutate { $0 = true } }) { throw error }
        wait(for: gated)
        assertProcedureFinishedWithErrors(gated, count: 1)
        XCTAssertEqual(gated.errors.first as? TestError, error)
        XCTAssertFalse(ran.value)
    }

    func testIgnoreErrorsSucceedsWhenTheOperationFails() {
        let ignoring = IgnoreErrorsProcedure(ResultProcedure<Int> { throw TestError("ignored") })
        wait(for: ignoring)
        assertProcedureFinished(ignoring)
        XCTAssertNil(ignoring.output)
        XCTAssertTrue(ignoring.operation.failed, "the wrapped procedure keeps its own errors")
    }

    func testIgnoreErrorsKeepsTheOutputOfASuccess() {
        let ignoring = IgnoreErrorsProcedure(ResultProcedure { 5 })
        wait(for: ignoring)
        XCTAssertEqual(ignoring.output, 5)
    }

    func testIgnoreErrorsStillReportsItsOwnCancel() {
        let blocker = Blocker<Int>("wrapped")
        let ignoring = IgnoreErrorsProcedure(blocker)
        ProcedureQueue().addOperation(ignoring)
        wait(for: [blocker.executed], timeout: 10)
        let error = TestError("stop")
        ignoring.cancel(withError: error)
        wait(for: ignoring)
        assertProcedureCancelled(ignoring, withErrors: true)
        XCTAssertEqual(ignoring.errors.first as? TestError, error)
    }
}
