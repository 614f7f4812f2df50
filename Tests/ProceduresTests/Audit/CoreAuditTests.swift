import Foundation
import Procedures
import ProceduresTesting
import XCTest

// Audit of the procedure core: each `testBUG_…` demonstrates a bug that remains (it FAILS
// until the bug is fixed). See each doc comment for expected vs observed and the suspected
// cause.
final class CoreAuditTests: MisuseRecordingTestCase {

    /// A ProcedureQueue whose `underlyingQueue` is `DispatchQueue.main` never runs a procedure.
    ///
    /// Expected: the procedure executes and finishes (XCTest's `wait` services the main queue,
    /// and plain `BlockOperation`s on the same queue do run).
    /// Observed: `start()` reports `.startedOutsideQueue` and the procedure stays `ready`
    /// forever (hang).
    /// Cause: `Procedure.start()` (Sources/Procedures/Procedure/Procedure.swift:289-297) only
    /// accepts a start when `OperationQueue.current === state.queue`; corelibs'
    /// `OperationQueue.current` returns `OperationQueue.main` whenever it is called on the main
    /// thread, so the owning queue's own start is rejected as misuse.
    func testBUG_ProcedureQueueOnTheMainDispatchQueueNeverRunsItsProcedures() {
        let queue = ProcedureQueue()
        queue.underlyingQueue = DispatchQueue.main
        let plainRan = expectation(description: "plain BlockOperation ran on the same queue")
        queue.addOperation { plainRan.fulfill() }
        wait(for: [plainRan], timeout: 5)

        let procedure = TestProcedure(name: "on main")
        queue.addOperation(procedure)
        wait(for: procedure, timeout: 2)
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    /// `addBarrierBlock` on a ProcedureQueue does not wait for procedures that were added
    /// before it but still wait for their dependencies.
    ///
    /// Expected (OperationQueue's contract): the barrier runs after every operation added
    /// before it has finished.
    /// Observed: the barrier runs at once, before the earlier procedure even started.
    /// Cause: waiting procedures are kept out of Foundation's queue
    /// (Sources/Procedures/Queue/ProcedureQueue.swift:96-111, `enqueueReady`), and
    /// `addBarrierBlock` is inherited unchanged, so Foundation's barrier only depends on the
    /// operations it holds.
    func testBUG_BarrierBlockDoesNotWaitForProceduresWaitingOnDependencies() {
        let other = ProcedureQueue()
        let gate = BlockProcedure(asyncBlock: { _ in })
        gate.name = "gate"
        let queue = ProcedureQueue()
        let earlier = TestProcedure(name: "earlier")
        earlier.addDependency(gate)
        other.addOperation(gate)
        queue.addOperation(earlier)

        let barrierRan = expectation(description: "barrier ran")
        let earlierFinishedBeforeBarrier = LockedBox<Bool?>(nil)
        queue.addBarrierBlock {
            earlierFinishedBeforeBarrier.mutate { $0 = earlier.isFinished }
            barrierRan.fulfill()
        }
        // Let the gate go only after the barrier had every chance to run early.
        let released = XCTWaiter().wait(for: [barrierRan], timeout: 0.5)
        gate.finish()
        if released != .completed { wait(for: [barrierRan], timeout: 5) }
        wait(for: earlier)
        XCTAssertEqual(earlierFinishedBeforeBarrier.value, true, "the barrier ran before an earlier procedure finished")
    }

    /// Two procedures made to depend on each other, never enqueued, are never freed.
    ///
    /// Expected: dropping the last outside reference frees them (Foundation's own
    /// dependencies are one-way: `__downDependencies` is unretained).
    /// Observed: both stay alive.
    /// Cause: `addDependency` stores the dependency strongly in `state.dependencies` and the
    /// dependent strongly in the dependency's `state.dependents`
    /// (Sources/Procedures/Procedure/Procedure.swift:343-349); only finishing breaks the cycle.
    func testBUG_DependencyBetweenProceduresThatNeverRunLeaksBoth() {
        weak var weakA: Procedure?
        weak var weakB: Procedure?
        do {
            let a = TestProcedure(name: "a")
            let b = TestProcedure(name: "b")
            b.addDependency(a)
            weakA = a
            weakB = b
        }
        XCTAssertNil(weakA, "the dependency leaked")
        XCTAssertNil(weakB, "the dependent leaked")
    }
}
