import Foundation
import ProceduresTesting
import XCTest

/// Semantic 5: the first finish wins; a later one is ignored and reported, never a crash.
final class FinishTests: ProcedureTestCase {
    func testFirstFinishWinsAndSecondIsReportedAsFinishedTwice() {
        let first = TestError("first")
        let trace = CallbackTrace()
        let procedure = TracedProcedure("twice", trace: trace) { procedure in
            procedure.finish(withError: first)
            procedure.finish(withError: TestError("second"))
        }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(testErrors(procedure.errors, equal: [first]), "\(procedure.errors)")
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
        XCTAssertEqual(trace.entries.filter { $0 == "didFinish" }.count, 1)
    }

    func testFinishAfterFinishedIsReportedAndChangesNothing() {
        let procedure = TestProcedure(name: "done")
        wait(for: procedure)
        procedure.finish(withError: TestError("late"))
        assertProcedureFinished(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
        let report = misuse.reports(about: procedure).first
        XCTAssertTrue(report?.message.contains("done") ?? false, "the report names the procedure: \(String(describing: report))")
    }

    func testConcurrentFinishesExactlyOneWins() {
        let finishCount = 16
        let didFinishes = LockedBox(0)
        let entered = expectation(description: "executing")
        let procedure = TracedProcedure("racing", trace: CallbackTrace(), onExecute: { _ in entered.fulfill() })
        procedure.addDidFinishBlockObserver { _, _ in didFinishes.mutate { $0 += 1 } }
        ProcedureQueue().addOperation(procedure)
        wait(for: [entered], timeout: 10)

        DispatchQueue.concurrentPerform(iterations: finishCount) { index in
            procedure.finish(withError: TestError("\(index)"))
        }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(didFinishes.value, 1)
        XCTAssertEqual(misuse.kinds(about: procedure), Array(repeating: .finishedTwice, count: finishCount - 1))
    }

    func testFinishWithErrorsCarriesAllOfThem() {
        let errors = [TestError("a"), TestError("b")]
        let procedure = TracedProcedure("errors", trace: CallbackTrace()) { $0.finish(withErrors: errors) }
        let received = LockedBox<[String]>([])
        procedure.addDidFinishBlockObserver { _, errors in
            received.mutate { $0 = errors.compactMap { ($0 as? TestError)?.id } }
        }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 2)
        XCTAssertTrue(testErrors(procedure.errors, equal: errors))
        XCTAssertEqual(received.value, ["a", "b"], "did-finish observers receive the errors")
    }

    func testFinishWithNilErrorIsASuccess() {
        let procedure = TracedProcedure("nil error", trace: CallbackTrace()) { $0.finish(withError: nil) }
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testFinishFromAnotherThreadLater() {
        let procedure = TracedProcedure("async", trace: CallbackTrace()) { procedure in
            DispatchQueue.global().async { procedure.finish() }
        }
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testCancelRacingFinishFinishesExactlyOnce() {
        // What holds today whichever wins (the ordering of the hooks under this race is
        // CancellationHookTests.testCancelRacingFinishRunsItsHooksBeforeFinishOrNotAtAll).
        for round in 0..<200 {
            let didFinishes = LockedBox(0)
            let procedure = TracedProcedure("race \(round)", trace: CallbackTrace(), observed: false, onExecute: { _ in })
            procedure.addDidFinishBlockObserver { _, _ in didFinishes.mutate { $0 += 1 } }
            procedure.start()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { procedure.cancel() } else { procedure.finish() }
            }
            XCTAssertTrue(procedure.isFinished, "round \(round)")
            XCTAssertEqual(didFinishes.value, 1, "round \(round)")
            XCTAssertEqual(misuse.kinds(about: procedure), [], "round \(round)")
        }
    }
}

extension FinishTests {
    /// The output belongs to the first finish: a `ResultProcedure` whose first finish carries no
    /// output keeps `output` nil when a second, ignored `finish(withOutput:)` follows (reported as
    /// `.finishedTwice`).
    func testIgnoredSecondFinishDoesNotSupplyTheOutput() {
        final class FinishesTwice: ResultProcedure<Int>, @unchecked Sendable {
            override func execute() {
                finish()
                finish(withOutput: 2)
            }
        }
        let procedure = FinishesTwice()
        wait(for: procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
        XCTAssertNil(procedure.output, "the ignored second finish supplied the output")
    }
}
