import Foundation
import ProceduresTesting
import XCTest

/// Typed results: `ResultProcedure` in its block, async and subclass forms.
final class ResultProcedureTests: MisuseRecordingTestCase {
    // MARK: Block form

    func testBlockValueBecomesTheOutput() {
        let answer = ResultProcedure { 6 * 7 }
        XCTAssertNil(answer.output, "no output before it runs")
        wait(for: answer)
        assertProcedureFinished(answer)
        XCTAssertEqual(answer.output, 42)
    }

    func testThrowingBlockFailsWithItsErrorAndHasNoOutput() {
        let failing = ResultProcedure<Int> { throw TestError("e7") }
        wait(for: failing)
        assertProcedureFinishedWithErrors(failing, count: 1)
        XCTAssertEqual(failing.errors.first as? TestError, TestError("e7"))
        XCTAssertNil(failing.output)
    }

    func testBlockCancelledBeforeItStartsNeverRuns() {
        let ran = LockedBox(false)
        let procedure = ResultProcedure { () -> Int in
            ran.mutate { $0 = true }
            return 1
        }
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(ran.value)
        XCTAssertNil(procedure.output)
    }

    /// ProcedureKit's `ResultProcedure { procedure in … }`: the block is handed its own
    /// procedure (to look at `isCancelled`, to log) and its value becomes the output.
    func testBlockTakingItsProcedureSeesItAndReturnsTheOutput() {
        let seenItself = LockedBox<Bool?>(nil)
        let holder = LockedBox<ResultProcedure<String>?>(nil)
        let greeting = ResultProcedure<String> { procedure in
            seenItself.mutate { $0 = procedure === holder.value && !procedure.isCancelled }
            procedure.log.debug("greeting")
            return "Hello World"
        }
        holder.mutate { $0 = greeting }
        wait(for: greeting)
        holder.mutate { $0 = nil }
        assertProcedureFinished(greeting)
        XCTAssertEqual(greeting.output, "Hello World")
        XCTAssertEqual(seenItself.value, true)
    }

    func testBlockTakingItsProcedureFailsWithWhatItThrows() {
        let failing = ResultProcedure<Int> { _ in throw TestError("e8") }
        wait(for: failing)
        assertProcedureFinishedWithErrors(failing, count: 1)
        XCTAssertEqual(failing.errors.first as? TestError, TestError("e8"))
        XCTAssertNil(failing.output)
    }

    // MARK: Async closure form

    func testAsyncClosureValueBecomesTheOutput() {
        let procedure = ResultProcedure { () async throws -> String in
            await Task.yield()
            return "done"
        }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output, "done")
    }

    func testAsyncClosureErrorFailsTheProcedure() {
        let procedure = ResultProcedure { () async throws -> String in
            await Task.yield()
            throw TestError("e3")
        }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(procedure.errors.first as? TestError, TestError("e3"))
        XCTAssertNil(procedure.output)
    }

    func testCancellingTheProcedureCancelsItsTask() {
        let started = expectation(description: "closure started")
        let sawCancellation = LockedBox<Bool?>(nil)
        let procedure = ResultProcedure { () async throws -> Int in
            started.fulfill()
            do {
                try await Task.sleep(nanoseconds: 60_000_000_000)  // the work that gets cancelled
            } catch {
                sawCancellation.mutate { $0 = Task.isCancelled && error is CancellationError }
                throw error
            }
            return 1
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        XCTAssertEqual(sawCancellation.value, true, "the closure saw Task.isCancelled and a CancellationError")
        assertProcedureCancelled(procedure)  // CancellationError is not recorded as an error
        XCTAssertNil(procedure.output)
    }

    func testAsyncClosureThatReturnsAValueAfterCancellationHasNoOutput() {
        let started = expectation(description: "closure started")
        let procedure = ResultProcedure { () async -> Int in
            started.fulfill()
            // Ignores cancellation politely: waits for it, then returns a value anyway.
            await suspendUntilTaskIsCancelled()
            return 99
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertNil(procedure.output, "a value produced after the cancel is not an output")
    }

    func testAsyncClosureThrowingAnotherErrorAfterCancellationKeepsTheError() {
        let started = expectation(description: "closure started")
        let procedure = ResultProcedure { () async throws -> Int in
            started.fulfill()
            await suspendUntilTaskIsCancelled()
            throw TestError("e9")
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertEqual(procedure.errors.first as? TestError, TestError("e9"))
    }

    // MARK: Subclass form

    final class Doubler: ResultProcedure<Int>, @unchecked Sendable {
        let input: Int
        init(_ input: Int) {
            self.input = input
            super.init()
        }
        override func execute() {
            DispatchQueue.global().async { [self] in finish(withOutput: input * 2) }
        }
    }

    /// Finishes with an output from its did-cancel hook: the output must not survive the cancel.
    final class StubbornOnCancel: ResultProcedure<Int>, @unchecked Sendable {
        let executing = XCTestExpectation(description: "executing")
        override func execute() { executing.fulfill() }
        override func procedureDidCancel(withErrors errors: [any Error]) {
            super.procedureDidCancel(withErrors: errors)
            finish(withOutput: 5)
        }
    }

    func testSubclassFinishesWithOutput() {
        let doubler = Doubler(21)
        wait(for: doubler)
        assertProcedureFinished(doubler)
        XCTAssertEqual(doubler.output, 42)
    }

    func testSubclassOutputIsNilAfterCancellation() {
        let procedure = StubbornOnCancel()
        ProcedureQueue().addOperation(procedure)
        wait(for: [procedure.executing], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertNil(procedure.output)
    }

    func testSubclassThatFinishesWithoutOutputHasNone() {
        let procedure = ResultProcedure<Int>()  // the subclass form's default execute() just finishes
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertNil(procedure.output)
    }

    func testOnlyTheFirstFinishSetsTheOutput() {
        final class FinishesTwice: ResultProcedure<Int>, @unchecked Sendable {
            override func execute() {
                finish(withOutput: 1)
                finish(withOutput: 2)
            }
        }
        let procedure = FinishesTwice()
        wait(for: procedure)
        XCTAssertEqual(procedure.output, 1)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }
}
