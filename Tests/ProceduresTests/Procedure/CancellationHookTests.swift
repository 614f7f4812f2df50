import Foundation
import ProceduresTesting
import XCTest

/// Semantic 4: `isCancelled` is true as soon as `cancel()` accepted the request; the
/// will-cancel hooks then run exactly once, before the did-cancel hooks, the overrides before
/// the observers, and nothing cancel-related happens once a procedure has begun finishing.
final class CancellationHookTests: CoreTestCase {
    func testEveryCancelHookSeesIsCancelledAlreadyTrue() {
        let seen = LockedBox<[String]>([])
        let procedure = TestProcedure(name: "flags")
        procedure.addWillCancelBlockObserver { procedure, _ in
            seen.mutate { $0.append("willCancel cancelled=\(procedure.isCancelled)") }
        }
        procedure.addDidCancelBlockObserver { procedure, _ in
            seen.mutate { $0.append("didCancel cancelled=\(procedure.isCancelled)") }
        }
        procedure.cancel()
        XCTAssertEqual(seen.value, ["willCancel cancelled=true", "didCancel cancelled=true"])
        wait(for: procedure)
    }

    func testCancelHooksRunExactlyOnceUnderConcurrentCancels() {
        let willCancels = LockedBox(0)
        let didCancels = LockedBox(0)
        let trace = CoreTrace()
        let procedure = CoreTracedProcedure("contended", trace: trace)
        procedure.addWillCancelBlockObserver { _, _ in willCancels.mutate { $0 += 1 } }
        procedure.addDidCancelBlockObserver { _, _ in didCancels.mutate { $0 += 1 } }

        DispatchQueue.concurrentPerform(iterations: 64) { index in
            procedure.cancel(withError: TestError("\(index)"))
        }
        XCTAssertEqual(willCancels.value, 1)
        XCTAssertEqual(didCancels.value, 1)
        XCTAssertEqual(procedure.errors.count, 1, "only the winning cancel's errors are kept: \(procedure.errors)")

        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertEqual(
            trace.entries.filter { $0.contains("Cancel") || $0.contains("cancel") }.count, 4,
            "each cancel hook once: \(trace.entries)")
    }

    func testOverridesRunBeforeObserversOfTheSameEvent() {
        // The trace observer is the procedure's first observer; the overrides still come first.
        let trace = CoreTrace()
        let procedure = CoreTracedProcedure("order", trace: trace)
        procedure.cancel()
        XCTAssertEqual(trace.entries, [
            "procedureWillCancel(cancelled: true)", "willCancel",
            "procedureDidCancel(cancelled: true)", "didCancel",
        ])
        wait(for: procedure)
    }

    func testCancelWithMultipleErrorsPassesThemToEveryHook() {
        let errors = [TestError("a"), TestError("b")]
        let received = LockedBox<[[String]]>([])
        let procedure = TestProcedure(name: "errors")
        let ids: @Sendable ([any Error]) -> [String] = { $0.compactMap { ($0 as? TestError)?.id } }
        procedure.addWillCancelBlockObserver { _, errors in received.mutate { $0.append(ids(errors)) } }
        procedure.addDidCancelBlockObserver { _, errors in received.mutate { $0.append(ids(errors)) } }
        procedure.cancel(withErrors: errors)
        XCTAssertEqual(received.value, [["a", "b"], ["a", "b"]])
        wait(for: procedure)
        XCTAssertTrue(coreErrors(procedure.errors, equal: errors))
    }

    func testCancelWithoutErrorsDoesNotMakeTheProcedureFail() {
        let procedure = TestProcedure(name: "plain cancel")
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: false)
        XCTAssertFalse(procedure.failed)
    }

    func testNoCancelHooksOnceFinishWasCalledFromExecute() {
        let trace = CoreTrace()
        let procedure = CoreTracedProcedure("finishing", trace: trace) { procedure in
            procedure.finish()
            procedure.cancel()  // after finish, in the same callback: too late
        }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, [
            "willExecute", "execute", "didExecute",
            "procedureWillFinish(finished: false)", "willFinish",
            "procedureDidFinish(finished: true)", "didFinish",
        ])
    }

    func testNoCancelHooksForAProcedureFinishedBeforeItStarted() {
        // finish() before the queue starts a procedure is remembered; a cancel after it has
        // no effect, and `execute()` is skipped.
        let trace = CoreTrace()
        let procedure = CoreTracedProcedure("finished early", trace: trace)
        procedure.finish()
        procedure.cancel()
        XCTAssertFalse(procedure.isCancelled)
        XCTAssertEqual(trace.entries, [])
        XCTAssertFalse(procedure.isFinished, "finishes only once its queue starts it")

        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(trace.entries, [
            "procedureWillFinish(finished: false)", "willFinish",
            "procedureDidFinish(finished: true)", "didFinish",
        ])
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    func testCancelFromAnotherThreadWhileExecuteRunsIsVisibleAtOnceAndItsHooksRunAfterExecuteReturns() {
        // Callbacks never overlap: the cancel hooks wait for execute() (and the did-execute
        // observers) to return, then run. The flag does not wait: Foundation's contract.
        let trace = CoreTrace()
        let inExecute = expectation(description: "in execute")
        let release = DispatchSemaphore(value: 0)  // test-side only: holds execute() open
        let cancelReturned = expectation(description: "cancel returned")
        let procedure = CoreTracedProcedure("busy", trace: trace, onExecute: { _ in
            inExecute.fulfill()
            release.wait()
        }, onDidCancel: { $0.finish() })
        ProcedureQueue().addOperation(procedure)
        wait(for: [inExecute], timeout: 10)

        // A thread of its own: the pool thread running execute() is held.
        Thread {
            procedure.cancel()
            cancelReturned.fulfill()
        }.start()
        // cancel() must not wait for execute() to return.
        wait(for: [cancelReturned], timeout: 10)
        XCTAssertTrue(procedure.isCancelled, "isCancelled is true once cancel() returned")
        XCTAssertFalse(
            trace.entries.contains { $0.contains("Cancel") }, "the hooks are queued behind the running execute(): \(trace.entries)")
        release.signal()

        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(trace.entries, [
            "willExecute", "execute", "didExecute",
            "procedureWillCancel(cancelled: true)", "willCancel",
            "procedureDidCancel(cancelled: true)", "didCancel",
            "procedureWillFinish(finished: false)", "willFinish",
            "procedureDidFinish(finished: true)", "didFinish",
        ])
    }
}
