import Foundation
import ProceduresTestSupport
import ProceduresTesting
import Testing

/// The outcome properties `#expect` and `#require` check: each holds for its outcome only, and
/// a failed expectation shows the procedure's name, stage and errors.
@Suite struct SwiftTestingExpectationTests {
    /// One procedure per outcome, each finished (or not) on its own queue.
    private struct Outcomes {
        let clean = TestProcedure(name: "clean")
        let failed = TestProcedure(name: "failed", error: TestError("boom"))
        let cancelled = TestProcedure(name: "cancelled")
        let cancelledWithError = TestProcedure(name: "cancelledWithError")
        let unfinished = TestProcedure(name: "unfinished")

        init() async throws {
            cancelled.cancel()
            cancelledWithError.cancel(withError: TestError("stop"))
            try await wait(for: clean, failed, cancelled, cancelledWithError)
        }
    }

    @Test func finishedWithoutErrorsHoldsOnlyForAFinishThatWasNotCancelledAndHasNoErrors() async throws {
        let outcomes = try await Outcomes()
        #expect(outcomes.clean.finishedWithoutErrors)
        #expect(!outcomes.failed.finishedWithoutErrors)
        #expect(!outcomes.cancelled.finishedWithoutErrors)
        #expect(!outcomes.unfinished.finishedWithoutErrors)
    }

    @Test func finishedWithErrorsHoldsOnlyForAFailureThatWasNotCancelled() async throws {
        let outcomes = try await Outcomes()
        #expect(outcomes.failed.finishedWithErrors)
        #expect(outcomes.failed.errors as? [TestError] == [TestError("boom")])
        #expect(!outcomes.clean.finishedWithErrors)
        #expect(!outcomes.cancelledWithError.finishedWithErrors)
        #expect(!outcomes.unfinished.finishedWithErrors)
    }

    @Test func finishedCancelledHoldsForACancelledFinishWithOrWithoutErrors() async throws {
        let outcomes = try await Outcomes()
        #expect(outcomes.cancelled.finishedCancelled)
        #expect(outcomes.cancelledWithError.finishedCancelled)
        #expect(!outcomes.clean.finishedCancelled)
        #expect(!outcomes.failed.finishedCancelled)
        let cancelledNotStarted = TestProcedure(name: "not started")
        cancelledNotStarted.cancel()
        #expect(!cancelledNotStarted.finishedCancelled, "cancelled, but not finished yet")
    }

    @Test func aFailedExpectationShowsTheProcedureNameStageAndErrors() async throws {
        let outcomes = try await Outcomes()
        let failed = outcomes.failed
        let shown = LockedBox<[String]>([])
        withKnownIssue {
            #expect(failed.finishedWithoutErrors)
        } matching: { issue in
            shown.mutate { $0.append(String(describing: issue)) }
            return true
        }
        let text = try #require(shown.value.first)
        #expect(text.contains("failed: finished"), "its name and stage: \(text)")
        #expect(text.contains("TestError(boom)"), "its errors: \(text)")
        #expect(failed.testDescription == "failed: finished, errors: [TestError(boom)]")
    }

    @Test func theSharedChecksNameEachWayAProcedureFallsShort() async throws {
        let outcomes = try await Outcomes()
        // The XCTest assertions report these messages one by one; the properties are true when
        // there is none.
        #expect(ProcedureOutcomeCheck.finished(outcomes.clean).isEmpty)
        #expect(ProcedureOutcomeCheck.finishedWithErrors(outcomes.failed, count: 2)
            == ["failed: finished, errors: [TestError(boom)] has 1 error(s), not 2"])
        #expect(ProcedureOutcomeCheck.cancelled(outcomes.cancelled, withErrors: true)
            == ["cancelled: finished, cancelled has no errors"])
        #expect(ProcedureOutcomeCheck.finished(outcomes.unfinished) == ["unfinished: initial has not finished"])
    }
}
