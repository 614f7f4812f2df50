import Foundation
import ProceduresTesting
import XCTest

/// `AsyncResultProcedure`: a block that finishes the procedure later, through a callback.
final class AsyncResultProcedureTests: MisuseRecordingTestCase {
    func testFinishesWithTheValueTheCallbackDelivers() {
        let procedure = AsyncResultProcedure<Int> { finish in
            DispatchQueue.global().async { finish(.success(42)) }
        }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output, 42)
    }

    func testFailsWithTheErrorTheCallbackDelivers() {
        let procedure = AsyncResultProcedure<Int> { finish in
            DispatchQueue.global().async { finish(.failure(TestError("lookup"))) }
        }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(procedure.errors.first as? TestError, TestError("lookup"))
        XCTAssertNil(procedure.output)
    }

    func testDoesNotFinishBeforeTheCallbackIsCalled() {
        let callback = LockedBox<AsyncResultProcedure<String>.Finish?>(nil)
        let started = expectation(description: "block ran")
        let procedure = AsyncResultProcedure<String> { finish in
            callback.mutate { $0 = finish }
            started.fulfill()
        }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        XCTAssertFalse(procedure.isFinished)
        callback.value?(.success("later"))
        wait(for: procedure)
        XCTAssertEqual(procedure.output, "later")
    }

    func testACancelledProcedureCanBeFinishedWithAResultFromADidCancelObserver() {
        // ProcedureKit's pattern: work that never answers, finished when the procedure is cancelled.
        let started = expectation(description: "block ran")
        let procedure = AsyncResultProcedure<Bool> { _ in started.fulfill() }
        procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish(withResult: .success(true)) }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertNil(procedure.output, "a cancelled procedure has no output")
    }

    func testASecondCallbackIsIgnoredAndReported() {
        let procedure = AsyncResultProcedure<Int> { finish in
            finish(.success(1))
            finish(.success(2))
        }
        wait(for: procedure)
        XCTAssertEqual(procedure.output, 1)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }

    func testACancelledProcedureNeverRunsItsBlock() {
        let ran = LockedBox(false)
        let procedure = AsyncResultProcedure<Int> { finish in
            ran.mutate { $0 = true }
            finish(.success(1))
        }
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(ran.value)
    }

    func testItsOutputCanBeInjected() {
        let source = AsyncResultProcedure<Int> { finish in finish(.success(20)) }
        let next = TransformProcedure { (x: Int) in x + 1 }.injectResult(from: source)
        wait(for: source, next)
        XCTAssertEqual(next.output, 21)
    }
}
