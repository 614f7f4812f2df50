import Foundation
import ProceduresTesting
import XCTest

/// A procedure whose units the test sets by hand, and which finishes when told.
final class SteppedProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `box` is locked; the expectation is thread-safe.
    let executing = XCTestExpectation(description: "executing")
    private let box = LockedBox<(executing: Bool, released: Bool)>((false, false))

    override func execute() {
        let released = box.mutate { state -> Bool in
            state.executing = true
            return state.released
        }
        executing.fulfill()
        if released { finish() }
    }

    func release() {
        let executing = box.mutate { state -> Bool in
            state.released = true
            return state.executing
        }
        if executing { finish() }
    }
}

/// Every procedure's progress: what a finished and a cancelled one report, and units set by hand.
final class ProcedureProgressTests: XCTestCase {
    func testFinishedProcedureReportsOneHundredPercent() {
        let procedure = BlockProcedure {}
        let progress = procedure.progress
        XCTAssertEqual(progress.fractionCompleted, 0)
        wait(for: procedure)
        XCTAssertEqual(progress.fractionCompleted, 1)
        XCTAssertTrue(progress.isFinished)
        XCTAssertEqual(progress.completedUnitCount, 1)
        XCTAssertEqual(progress.totalUnitCount, 1)
        XCTAssertFalse(progress.isCancelled)
        XCTAssertEqual(procedure.currentProgress.isFinal, true)
    }

    func testProgressAskedForOnlyAfterTheProcedureFinishedIsComplete() {
        let procedure = BlockProcedure {}
        wait(for: procedure)
        XCTAssertEqual(procedure.progress.fractionCompleted, 1)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 1)
    }

    func testFinishedProcedureWithErrorsReportsOneHundredPercent() {
        struct Failure: Error {}
        let procedure = BlockProcedure { throw Failure() }
        procedure.progress.totalUnitCount = 10
        wait(for: procedure)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 1)
        XCTAssertEqual(procedure.progress.completedUnitCount, 10)
    }

    func testCancelledProcedureStopsWhereItWas() {
        let procedure = SteppedProcedure()
        procedure.progress.totalUnitCount = 10
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        wait(for: [procedure.executing], timeout: 10)
        procedure.progress.completedUnitCount = 4
        procedure.cancel()
        procedure.progress.completedUnitCount = 7  // too late: it stopped at 4
        procedure.release()
        wait(for: procedure)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 0.4, accuracy: 1e-9)
        XCTAssertEqual(procedure.progress.completedUnitCount, 4)
        XCTAssertTrue(procedure.progress.isCancelled)
        XCTAssertFalse(procedure.progress.isFinished)
        XCTAssertTrue(procedure.currentProgress.isCancelled)
        XCTAssertTrue(procedure.currentProgress.isFinal)
    }

    func testProcedureCancelledBeforeItsProgressWasAskedForStaysAtZero() {
        let procedure = BlockProcedure {}
        procedure.cancel()
        wait(for: procedure)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 0)
        XCTAssertTrue(procedure.currentProgress.isCancelled)
    }

    func testCancellingTheFoundationProgressCancelsTheProcedure() {
        let procedure = SteppedProcedure()
        ProcedureQueue().addOperation(procedure)
        wait(for: [procedure.executing], timeout: 10)
        XCTAssertTrue(procedure.progress.isCancellable)
        let cancelled = XCTestExpectation(description: "cancelled")
        procedure.addDidCancelBlockObserver { _, _ in cancelled.fulfill() }
        procedure.progress.cancel()  // corelibs calls the cancellation handler asynchronously
        wait(for: [cancelled], timeout: 10)
        procedure.release()
        wait(for: procedure)
    }

    func testTheSameFoundationProgressEachTime() {
        let procedure = BlockProcedure {}
        XCTAssertTrue(procedure.progress === procedure.progress)
    }

    func testFoundationProgressIsNotAttachedToTheCallersCurrentProgress() {
        let outer = Progress(totalUnitCount: 1)
        outer.becomeCurrent(withPendingUnitCount: 1)
        let procedure = BlockProcedure {}
        _ = procedure.progress
        outer.resignCurrent()
        // Unattached, the outer progress's pending unit counts as done when it resigns.
        XCTAssertEqual(outer.completedUnitCount, 1)
        XCTAssertEqual(procedure.progress.fractionCompleted, 0)
    }

    func testIndeterminateUntilATotalIsSet() {
        let procedure = BlockProcedure {}
        XCTAssertTrue(procedure.progress.isIndeterminate)
        procedure.progress.totalUnitCount = 4
        procedure.progress.completedUnitCount = 1
        XCTAssertFalse(procedure.progress.isIndeterminate)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 0.25)
        XCTAssertEqual(procedure.progress.fractionCompleted, 0.25)
    }

    func testUnitsReportedBeforeAnyoneAskedAreThereWhenAsked() {
        let procedure = SteppedProcedure()
        procedure.reportProgress(completed: 3, of: 12)
        XCTAssertEqual(procedure.currentProgress.fractionCompleted, 0.25)
        procedure.reportProgress(completed: 6, of: 12)
        XCTAssertEqual(procedure.progress.completedUnitCount, 6)
        XCTAssertEqual(procedure.progress.fractionCompleted, 0.5)
        procedure.cancel()
        procedure.release()
        wait(for: procedure)
    }

    func testProgressUpdateDescribesItself() {
        let update = ProgressUpdate(fractionCompleted: 0.4, completedUnitCount: 4, totalUnitCount: 10, isCancelled: true)
        XCTAssertEqual(update.description, "40.0 % (4 of 10), cancelled")
        XCTAssertEqual(ProgressUnits(fraction: 0.25), ProgressUnits(completed: 2500, of: 10_000))
        XCTAssertEqual(ProgressUnits(fraction: .nan), ProgressUnits(completed: 0, of: 10_000))
    }
}
