import Foundation
import Synchronization
import XCTest

@testable import Procedures

/// The lifecycle state machine from a slot to finished: starting, executing, giving the slot
/// back and asking for it again, finishing. Driven without threads or locks.
final class ProcedureLifecycleRunningTests: XCTestCase {
    // MARK: - Starting and executing

    func testAScheduledProcedureRunsExecutesAndGivesItsSlotBackWhenFinished() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.ready(by: owner)
        guard case .start(let startingOwner) = machine.slotGranted() else { return XCTFail("start") }
        XCTAssertTrue(startingOwner === owner)
        XCTAssertEqual(machine.phase, .started)
        XCTAssertEqual(machine.startDecision, .run)
        guard case .execute(let executingOwner) = machine.beginExecuting() else { return XCTFail("execute") }
        XCTAssertTrue(executingOwner === owner)
        XCTAssertEqual(machine.phase, .executing)
        XCTAssertTrue(machine.canProduce)
        XCTAssertEqual(machine.requestFinish(errors: [LifecycleDriver.Failure()]), .post)
        XCTAssertFalse(machine.canProduce, "a procedure that began finishing produces nothing")
        guard case .begin(let errors, _) = machine.beginFinishing() else { return XCTFail("finishing") }
        XCTAssertEqual(errors.count, 1)
        let (slot, cancelled) = machine.finish()
        XCTAssertTrue(slot === owner.scheduler, "the slot goes back to the owner's scheduler")
        XCTAssertFalse(cancelled)
        XCTAssertEqual(machine.phase, .finished)
    }

    func testAProcedureStartedByHandRunsWithoutASlotOrOwner() {
        var machine = LifecycleDriver.runningWithoutOwner()
        XCTAssertEqual(machine.phase, .started)
        XCTAssertNil(machine.owner)
        XCTAssertFalse(machine.canProduce, "nothing to produce onto")
        guard case .execute(let owner) = machine.beginExecuting() else { return XCTFail("execute") }
        XCTAssertNil(owner)
        _ = machine.requestFinish(errors: [])
        _ = machine.beginFinishing()
        XCTAssertNil(machine.finish().slot, "it held no slot to give back")
    }

    func testAFinishBeforeStartingSkipsExecute() {
        var machine = LifecycleDriver.ready(by: StandInOwner())
        XCTAssertEqual(machine.requestFinish(errors: []), .deferred)
        _ = machine.slotGranted()
        XCTAssertEqual(machine.startDecision, .finish)
        guard case .skip = machine.beginExecuting() else { return XCTFail("execute skipped") }
        XCTAssertEqual(machine.phase, .started)
    }

    func testACancelledProcedureDoesNotExecuteAndFinishesCancelled() {
        var machine = LifecycleDriver.ready(by: StandInOwner())
        _ = machine.requestCancel(errors: [])
        _ = machine.cancelHandled()
        _ = machine.slotGranted()
        XCTAssertEqual(machine.startDecision, .cancelled)
        guard case .cancelled = machine.beginExecuting() else { return XCTFail("cancelled") }
        XCTAssertEqual(machine.phase, .started)
        XCTAssertEqual(machine.requestFinish(errors: []), .post)
        guard case .begin = machine.beginFinishing() else { return XCTFail("finishing") }
        XCTAssertTrue(machine.finish().cancelled)
    }

    func testACancelWhileExecutingIsARequestOnly() {
        var machine = LifecycleDriver.running(by: StandInOwner())
        _ = machine.beginExecuting()
        XCTAssertEqual(machine.requestCancel(errors: []), .post)
        XCTAssertEqual(LifecycleDriver.name(machine.cancelHandled()), "notWaiting", "nothing to make ready")
        XCTAssertEqual(machine.phase, .executing, "the procedure decides when to finish")
        XCTAssertEqual(machine.cancellation, .cancelled)
    }

    func testAnExecuteEventBehindAFinishIsSkipped() {
        var machine = LifecycleDriver.running(by: StandInOwner())
        _ = machine.requestFinish(errors: [])
        _ = machine.beginFinishing()
        guard case .skip = machine.beginExecuting() else { return XCTFail("skipped while finishing") }
        _ = machine.finish()
        guard case .skip = machine.beginExecuting() else { return XCTFail("skipped once finished") }
    }

    // MARK: - Giving the slot back and asking again

    func testGivingTheSlotBackNamesTheOwnersSchedulerOnce() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.running(by: owner)
        guard case .giveBack(let scheduler) = machine.releaseSlot() else { return XCTFail("give back") }
        XCTAssertTrue(scheduler === owner.scheduler)
        guard case .holdsNone = machine.releaseSlot() else { return XCTFail("given back already") }
        XCTAssertFalse(machine.isWaitingForSlotAgain, "given back, not asked for yet")
    }

    func testAProcedureWithoutASlotHasNoneToGiveBack() {
        var byHand = LifecycleDriver.runningWithoutOwner()
        guard case .holdsNone = byHand.releaseSlot() else { return XCTFail("started by hand") }
        var ready = LifecycleDriver.ready(by: StandInOwner())
        guard case .holdsNone = ready.releaseSlot() else { return XCTFail("not running yet") }
        XCTAssertEqual(ready.phase, .ready)
        var finished = LifecycleDriver.finished(by: StandInOwner())
        guard case .holdsNone = finished.releaseSlot() else { return XCTFail("finished") }
    }

    func testASlotGivenBackIsNotGivenBackAgainWhenItFinishes() {
        var machine = LifecycleDriver.running(by: StandInOwner())
        _ = machine.releaseSlot()
        _ = machine.requestFinish(errors: [])
        _ = machine.beginFinishing()
        XCTAssertNil(machine.finish().slot)
    }

    func testAskingAgainWaitsInLineAndTheGrantResumesAndHoldsTheSlot() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.running(by: owner)
        _ = machine.releaseSlot()
        let resumed = Atomic(0)
        guard case .wait(let scheduler) = machine.requestSlot(onGranted: { resumed.add(1, ordering: .relaxed) }) else {
            return XCTFail("wait for the slot")
        }
        XCTAssertTrue(scheduler === owner.scheduler)
        XCTAssertTrue(machine.isWaitingForSlotAgain)
        guard case .resume(let onGranted) = machine.slotGranted() else { return XCTFail("resume") }
        XCTAssertFalse(machine.isWaitingForSlotAgain)
        XCTAssertEqual(resumed.load(ordering: .relaxed), 0, "the caller runs it, outside the lock")
        onGranted()
        XCTAssertEqual(resumed.load(ordering: .relaxed), 1)
        XCTAssertEqual(machine.phase, .started)
        _ = machine.requestFinish(errors: [])
        _ = machine.beginFinishing()
        XCTAssertTrue(machine.finish().slot === owner.scheduler, "the slot it got again goes back when it finishes")
    }

    func testASecondRequestJoinsTheFirstAndBothRunInOrderOnTheGrant() {
        var machine = LifecycleDriver.running(by: StandInOwner())
        _ = machine.releaseSlot()
        let order = Mutex<[Int]>([])
        guard case .wait = machine.requestSlot(onGranted: { order.withLock { $0.append(1) } }) else { return XCTFail("first") }
        guard case .alreadyWaiting = machine.requestSlot(onGranted: { order.withLock { $0.append(2) } }) else {
            return XCTFail("second")
        }
        guard case .resume(let onGranted) = machine.slotGranted() else { return XCTFail("resume") }
        onGranted()
        XCTAssertEqual(order.withLock { $0 }, [1, 2])
    }

    func testAskingForASlotNeverGivenBackRunsAtOnce() {
        var holding = LifecycleDriver.running(by: StandInOwner())
        guard case .runNow = holding.requestSlot(onGranted: {}) else { return XCTFail("holds its slot") }
        var byHand = LifecycleDriver.runningWithoutOwner()
        guard case .runNow = byHand.requestSlot(onGranted: {}) else { return XCTFail("started by hand") }
        var finished = LifecycleDriver.finished(by: StandInOwner())
        guard case .runNow = finished.requestSlot(onGranted: {}) else { return XCTFail("finished") }
    }

    func testASlotGrantedAfterItFinishedIsUnwanted() {
        var finishing = LifecycleDriver.running(by: StandInOwner())
        _ = finishing.releaseSlot()
        _ = finishing.requestSlot(onGranted: {})
        _ = finishing.requestFinish(errors: [])
        _ = finishing.beginFinishing()
        guard case .unwanted = finishing.slotGranted() else { return XCTFail("finishing") }
        XCTAssertNil(finishing.finish().slot, "it held none when it finished")
        guard case .unwanted = finishing.slotGranted() else { return XCTFail("finished") }
    }
}
