import Foundation
import ProceduresTesting
import XCTest

/// Cancel racing completion across the bridge: exactly one outcome, and it agrees with the
/// procedure. Scaled by `PROCEDURES_STRESS_SCALE`.
final class BridgeRaceTests: XCTestCase {
    private struct Tally {
        var succeeded = 0
        var cancelled = 0
        var inconsistent: [String] = []
    }

    /// Runs `iterations` procedures; for each, `race` starts a cancel from another thread while
    /// the procedure completes, and the future's single outcome is checked against the procedure.
    private func race(
        iterations: Int, file: StaticString = #filePath, line: UInt = #line,
        cancel: @escaping @Sendable (ResultProcedure<Int>, Future<Int>) -> Void
    ) -> Tally {
        let queue = ProcedureQueue()
        let tally = LockedBox(Tally())
        let done = XCTestExpectation(description: "\(iterations) outcomes")
        done.expectedFulfillmentCount = iterations
        done.assertForOverFulfill = true  // a second outcome for any future fails the test
        for index in 0..<iterations {
            let procedure = ResultProcedure { index }
            let future = queue.future(procedure)
            future.onComplete(context: .immediate) { result in
                // Did-finish observers (this one included) run after the outcome is fixed.
                let consistent: Bool
                switch result {
                case .success(let value):
                    consistent = value == index && !procedure.isCancelled && procedure.output == index
                    tally.mutate { $0.succeeded += 1 }
                case .cancelled:
                    consistent = procedure.isCancelled && procedure.output == nil
                    tally.mutate { $0.cancelled += 1 }
                case .failure(let error):
                    consistent = false
                    tally.mutate { $0.inconsistent.append("#\(index) failed: \(error)") }
                }
                if !consistent {
                    tally.mutate { $0.inconsistent.append("#\(index): \(result.summary) vs \(procedure.stateSummary)") }
                }
                done.fulfill()
            }
            DispatchQueue.global().async { cancel(procedure, future) }
        }
        let outcome = XCTWaiter().wait(for: [done], timeout: 30)
        XCTAssertEqual(outcome, .completed, file: file, line: line)
        let result = tally.value
        XCTAssertEqual(result.succeeded + result.cancelled, iterations, file: file, line: line)
        XCTAssertEqual(result.inconsistent, [], file: file, line: line)
        return result
    }

    func testCancelRequestOnTheFutureRacingCompletion() {
        let iterations = stressIterations(2_000)
        let tally = race(iterations: iterations) { _, future in future.cancel() }
        print("future.cancel() vs completion: \(tally.succeeded) succeeded, \(tally.cancelled) cancelled")
    }

    func testProcedureCancelRacingCompletion() {
        let iterations = stressIterations(2_000)
        let tally = race(iterations: iterations) { procedure, _ in procedure.cancel() }
        print("procedure.cancel() vs completion: \(tally.succeeded) succeeded, \(tally.cancelled) cancelled")
    }

    func testForcedCancelRacingCompletionGivesOneOutcome() {
        // Forcing completes the future itself; the procedure may still succeed (it was only
        // asked), so only the single outcome is checked here.
        let iterations = stressIterations(2_000)
        let queue = ProcedureQueue()
        let done = XCTestExpectation(description: "\(iterations) outcomes")
        done.expectedFulfillmentCount = iterations
        done.assertForOverFulfill = true
        for index in 0..<iterations {
            let tail = queue.future(ResultProcedure { index }).map(context: .immediate) { $0 }
            tail.onComplete(context: .immediate) { _ in done.fulfill() }
            DispatchQueue.global().async { tail.cancel(options: .forceImmediately) }
        }
        XCTAssertEqual(XCTWaiter().wait(for: [done], timeout: 30), .completed)
    }

    func testTaskCancelRacingRunCompletion() async {
        let iterations = stressIterations(500)
        let queue = ProcedureQueue()
        var outcomes = (values: 0, cancelled: 0)
        for index in 0..<iterations {
            let procedure = ResultProcedure { index }
            let task = Task { try await queue.run(procedure) }
            DispatchQueue.global().async { task.cancel() }
            switch await task.result {
            case .success(let value):
                XCTAssertEqual(value, index)
                // Not `isCancelled`: a cancel can still flip it after the procedure finished
                // (ProcedureFutureCancelTests.testCancelNeverTakesEffectAfterTheProcedureFinished).
                XCTAssertEqual(procedure.output, index)
                outcomes.values += 1
            case .failure(let error):
                XCTAssertTrue(error is CancellationError, "\(error)")
                XCTAssertTrue(procedure.isCancelled, "threw CancellationError but \(procedure.stateSummary)")
                outcomes.cancelled += 1
            }
        }
        XCTAssertEqual(outcomes.values + outcomes.cancelled, iterations)
    }
}
