import Foundation
import XCTest

@testable import Procedures

/// The lifecycle state machine on its own: every transition, driven without threads or locks.
final class ProcedureLifecycleTests: XCTestCase {
    private struct Failure: Error, Equatable {}

    private func isSchedule(_ action: ReadyAction?, on scheduler: ProcedureScheduler) -> Bool {
        if case .schedule(let target) = action { return target === scheduler }
        return false
    }

    private func isStart(_ action: ReadyAction?) -> Bool {
        if case .start = action { return true }
        return false
    }

    private func isCheckConditions(_ action: ReadyAction?) -> Bool {
        if case .checkConditions = action { return true }
        return false
    }

    /// Claimed and ready to run: the claim's own count given back, the owner's scheduler asked.
    private func readyMachine(owner: StandInOwner, dependencies: Int = 0) -> ProcedureLifecycle {
        var machine = ProcedureLifecycle()
        guard case .claimed = machine.claim(owner: owner, dependencies: dependencies) else {
            XCTFail("claim refused")
            return machine
        }
        return machine
    }

    func testANewProcedureIsInitialAndOwnedByNoOne() {
        let machine = ProcedureLifecycle()
        XCTAssertEqual(machine.phase, .initial)
        XCTAssertNil(machine.owner)
        XCTAssertEqual(machine.cancellation, .none)
        XCTAssertFalse(machine.hasBegunFinishing)
        XCTAssertFalse(machine.canProduce)
    }

    func testClaimWaitsForDependenciesPlusTheClaimsOwnCount() {
        let owner = StandInOwner()
        var machine = readyMachine(owner: owner, dependencies: 2)
        XCTAssertEqual(machine.phase, .waiting)
        XCTAssertTrue(machine.owner === owner)
        XCTAssertNil(machine.dependenciesFinished(1), "the claim's own count")
        XCTAssertNil(machine.dependenciesFinished(1), "one dependency still unfinished")
        XCTAssertTrue(isSchedule(machine.dependenciesFinished(1), on: owner.scheduler))
        XCTAssertEqual(machine.phase, .ready)
    }

    func testAPlainDependencyFoundDuringTheClaimIsWaitedFor() {
        let owner = StandInOwner()
        var machine = readyMachine(owner: owner)
        machine.dependencyAdded()
        XCTAssertNil(machine.dependenciesFinished(1))
        XCTAssertTrue(isSchedule(machine.dependenciesFinished(1), on: owner.scheduler))
    }

    func testWithoutAnOwnerTheReadyActionIsToStart() {
        var machine = ProcedureLifecycle()
        _ = machine.claim(owner: nil, dependencies: 0)
        XCTAssertTrue(isStart(machine.dependenciesFinished(1)))
        XCTAssertTrue(machine.startUnscheduled())
        XCTAssertEqual(machine.phase, .started)
        XCTAssertFalse(machine.startUnscheduled(), "started once")
    }

    func testASecondClaimIsRefusedWithTheReason() {
        let owner = StandInOwner()
        var machine = readyMachine(owner: owner)
        guard case .refused(.alreadyInThisQueue) = machine.claim(owner: owner, dependencies: 0) else {
            return XCTFail("same owner")
        }
        guard case .refused(.inAnotherQueue) = machine.claim(owner: StandInOwner(), dependencies: 0) else {
            return XCTFail("another owner")
        }
        var byHand = ProcedureLifecycle()
        _ = byHand.claim(owner: nil, dependencies: 0)
        guard case .refused(.started) = byHand.claim(owner: owner, dependencies: 0) else {
            return XCTFail("started by hand")
        }
    }

    func testAGatedProcedureChecksItsConditionsOnceBeforeBecomingReady() {
        let owner = StandInOwner()
        var machine = ProcedureLifecycle()
        XCTAssertTrue(machine.addGate())
        _ = machine.claim(owner: owner, dependencies: 0)
        XCTAssertTrue(isCheckConditions(machine.dependenciesFinished(1)))
        XCTAssertTrue(machine.isCheckingGate)
        XCTAssertEqual(machine.phase, .waiting)
        XCTAssertTrue(isSchedule(machine.gateOpened(), on: owner.scheduler))
        XCTAssertFalse(machine.isCheckingGate)
    }

    func testConditionsCannotBeAddedOnceClaimed() {
        var machine = readyMachine(owner: StandInOwner())
        XCTAssertFalse(machine.addGate())
    }

    func testACancelledWaitingProcedureIsReadyAtOnceAndSkipsItsGate() {
        let owner = StandInOwner()
        var machine = ProcedureLifecycle()
        _ = machine.addGate()
        _ = machine.claim(owner: owner, dependencies: 3)
        XCTAssertEqual(machine.requestCancel(errors: [Failure()]), .post)
        XCTAssertEqual(machine.cancellation, .requested)
        XCTAssertEqual(machine.phase, .waiting, "only the cancel event's handling makes it ready")
        XCTAssertTrue(isSchedule(machine.cancelHandled(), on: owner.scheduler))
        XCTAssertEqual(machine.cancellation, .cancelled)
        XCTAssertEqual(machine.errors.count, 1)
    }

    func testOnlyTheFirstCancelIsAccepted() {
        var machine = ProcedureLifecycle()
        XCTAssertEqual(machine.requestCancel(errors: []), .post)
        XCTAssertEqual(machine.requestCancel(errors: [Failure()]), .ignore)
        XCTAssertTrue(machine.errors.isEmpty)
    }

    func testAScheduledProcedureRunsExecutesAndGivesItsSlotBackWhenFinished() {
        let owner = StandInOwner()
        var machine = readyMachine(owner: owner)
        _ = machine.dependenciesFinished(1)
        XCTAssertTrue(machine.startScheduled() === owner)
        XCTAssertEqual(machine.phase, .started)
        XCTAssertEqual(machine.startDecision, .run)
        guard case .execute(let executingOwner) = machine.beginExecuting() else { return XCTFail("execute") }
        XCTAssertTrue(executingOwner === owner)
        XCTAssertEqual(machine.phase, .executing)
        XCTAssertTrue(machine.canProduce)
        guard case .skip = machine.beginExecuting() else { return XCTFail("executes once") }
        XCTAssertEqual(machine.requestFinish(errors: [Failure()]), .post)
        XCTAssertFalse(machine.canProduce, "a procedure that began finishing produces nothing")
        XCTAssertEqual(machine.requestFinish(errors: []), .duplicate)
        guard let (errors, finishingOwner) = machine.beginFinishing() else { return XCTFail("finishing") }
        XCTAssertEqual(errors.count, 1)
        XCTAssertTrue(finishingOwner === owner)
        XCTAssertEqual(machine.phase, .finishing)
        XCTAssertNil(machine.beginFinishing(), "a second finish event is ignored")
        let (slot, cancelled) = machine.finish()
        XCTAssertTrue(slot === owner.scheduler, "the slot goes back to the owner's scheduler")
        XCTAssertFalse(cancelled)
        XCTAssertEqual(machine.phase, .finished)
        XCTAssertNil(machine.owner)
        guard case .refused(.finished) = machine.claim(owner: owner, dependencies: 0) else {
            return XCTFail("a finished procedure cannot be claimed")
        }
    }

    func testAFinishBeforeStartingIsDeferredThenSkipsExecute() {
        var machine = readyMachine(owner: StandInOwner())
        XCTAssertEqual(machine.requestFinish(errors: []), .deferred)
        XCTAssertTrue(machine.hasBegunFinishing)
        XCTAssertEqual(machine.requestCancel(errors: []), .ignore, "finishing wins over a later cancel")
        _ = machine.dependenciesFinished(1)
        _ = machine.startScheduled()
        XCTAssertEqual(machine.startDecision, .finish)
        guard case .skip = machine.beginExecuting() else { return XCTFail("execute skipped") }
    }

    func testACancelledProcedureDoesNotExecuteAndFinishesCancelled() {
        var machine = readyMachine(owner: StandInOwner())
        _ = machine.requestCancel(errors: [])
        _ = machine.cancelHandled()
        _ = machine.startScheduled()
        XCTAssertEqual(machine.startDecision, .cancelled)
        guard case .cancelled = machine.beginExecuting() else { return XCTFail("cancelled") }
        XCTAssertNotNil(machine.beginFinishing())
        XCTAssertTrue(machine.finish().cancelled)
    }

    func testACancelWhileExecutingIsARequestOnly() {
        var machine = readyMachine(owner: StandInOwner())
        _ = machine.dependenciesFinished(1)
        _ = machine.startScheduled()
        _ = machine.beginExecuting()
        XCTAssertEqual(machine.requestCancel(errors: []), .post)
        XCTAssertNil(machine.cancelHandled(), "nothing to make ready")
        XCTAssertEqual(machine.phase, .executing, "the procedure decides when to finish")
    }

    func testEveryPhaseIsOrdered() {
        let phases: [ProcedurePhase] = [.initial, .waiting, .ready, .started, .executing, .finishing, .finished]
        XCTAssertEqual(phases, phases.sorted())
    }
}
