import Foundation
import ProceduresTesting
import XCTest

/// A procedure whose synchronous `execute()` polls `isCancelled` until it is true, as many
/// `Operation` subclasses do. It gives up after `patience` so that a broken flag fails the
/// test instead of hanging it. It pauses between polls: it runs on a pool thread, and a
/// spinning loop would take a core from the thread that is to cancel it.
final class PollingProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `polls` is only written inside execute(), and read once the procedure has
    // finished; the rest is immutable or thread-safe.
    let recorder: ProcedureEventRecorder
    let patience: TimeInterval
    private let onExecute: @Sendable () -> Void
    /// What the loop saw when it stopped: nil if execute() never ran.
    private let outcome = LockedBox<Bool?>(nil)

    init(
        _ name: String, recorder: ProcedureEventRecorder, patience: TimeInterval = 10,
        onExecute: @escaping @Sendable () -> Void = {}
    ) {
        self.recorder = recorder
        self.patience = patience
        self.onExecute = onExecute
        super.init()
        self.name = name
        addObserver(recorder)
    }

    /// True if execute() ran and stopped because `isCancelled` became true.
    var sawCancel: Bool? { outcome.value }

    override func execute() {
        recorder.record(.execute, of: self) {
            onExecute()
            let deadline = Date().addingTimeInterval(patience)
            while !isCancelled && Date() < deadline { usleep(100) }
            outcome.mutate { $0 = isCancelled }
            finish()
        }
    }
}

/// Foundation's contract: `isCancelled` is true as soon as `cancel()` accepted the request, so
/// code polling it inside a running `execute()` stops; the cancel hooks still wait for
/// `execute()` to return and run once, in order.
final class CancelPollingTests: ProcedureTestCase {
    func testSynchronousExecutePollingIsCancelledStopsAfterACancelFromAnotherThread() {
        let recorder = ProcedureEventRecorder()
        let executing = expectation(description: "executing")
        let procedure = PollingProcedure("poller", recorder: recorder) { executing.fulfill() }
        ProcedureQueue().addOperation(procedure)
        wait(for: [executing], timeout: 10)

        // This thread is not the one polling in execute().
        procedure.cancel(withError: TestError("stop"))
        XCTAssertTrue(procedure.isCancelled)

        wait(for: procedure, timeout: 20)
        XCTAssertEqual(procedure.sawCancel, true, "execute() never saw isCancelled become true")
        assertProcedureCancelled(procedure, withErrors: true)
        // The hooks waited for execute(), ran once, will before did, and before the finish
        // that execute() asked for after seeing the flag.
        XCTAssertEqual(
            recorder.events(of: procedure),
            [.willExecute, .execute, .didExecute, .willCancel, .didCancel, .willFinish, .didFinish])
        XCTAssertEqual(recorder.overlaps, [])
    }

    func testBlockProcedurePollingIsCancelledOnItsExecutingThreadStops() {
        let executing = expectation(description: "executing")
        let sawCancel = LockedBox<Bool?>(nil)
        let procedure = BlockProcedure(asyncBlock: { procedure in
            executing.fulfill()
            let deadline = Date().addingTimeInterval(10)
            while !procedure.isCancelled && Date() < deadline { usleep(100) }
            sawCancel.mutate { $0 = procedure.isCancelled }
            procedure.finish()
        })
        let hooks = LockedBox<[String]>([])
        procedure.addWillCancelBlockObserver { _, _ in hooks.mutate { $0.append("willCancel") } }
        procedure.addDidCancelBlockObserver { _, _ in hooks.mutate { $0.append("didCancel") } }
        ProcedureQueue().addOperation(procedure)
        wait(for: [executing], timeout: 10)

        // A thread of its own: the polling block holds one of the pool's few threads.
        Thread { procedure.cancel() }.start()
        wait(for: procedure, timeout: 20)
        XCTAssertEqual(sawCancel.value, true, "the block never saw isCancelled become true")
        XCTAssertEqual(hooks.value, ["willCancel", "didCancel"])
        assertProcedureCancelled(procedure)
    }

    func testGuideCountPrimesStopsWhenCancelled() {
        let executing = expectation(description: "executing")
        let primes = CountPrimes()
        primes.addWillExecuteBlockObserver { _ in executing.fulfill() }
        ProcedureQueue().addOperation(primes)
        wait(for: [executing], timeout: 10)
        primes.cancel()
        wait(for: primes, timeout: 20)
        assertProcedureCancelled(primes)
        XCTAssertLessThan(primes.found, 664_579, "stopped before counting every prime below ten million")
    }

    func testIsCancelledIsTrueBeforeTheHooksOfACancelFromInsideACallbackRun() {
        // A cancel from inside execute() is handled once execute() returns; the flag is set
        // at once, so execute() itself sees it right after calling cancel().
        let seen = LockedBox<[String]>([])
        let procedure = BlockProcedure(asyncBlock: { procedure in
            procedure.cancel()
            seen.mutate { $0.append("after cancel(): \(procedure.isCancelled)") }
            procedure.finish()
        })
        procedure.addWillCancelBlockObserver { _, _ in seen.mutate { $0.append("willCancel") } }
        wait(for: procedure)
        XCTAssertEqual(seen.value, ["after cancel(): true", "willCancel"])
        assertProcedureCancelled(procedure)
    }

    func testCancelAfterFinishingBeganLeavesIsCancelledFalse() {
        let procedure = BlockProcedure {}
        procedure.addWillFinishBlockObserver { procedure, _ in procedure.cancel() }
        wait(for: procedure)
        XCTAssertFalse(procedure.isCancelled)
        assertProcedureFinished(procedure)
    }
}
