import Foundation
import XCTest

@testable import Procedures

/// The lifecycle state machine on its own, from creation to ready and from cancel and finish
/// requests to finished: every transition, driven without threads or locks. (Slots, starting
/// and executing: ``ProcedureLifecycleRunningTests``.)
final class ProcedureLifecycleTests: XCTestCase {
    func testANewProcedureIsInitialAndOwnedByNoOne() {
        let machine = ProcedureLifecycle()
        XCTAssertEqual(machine.phase, .initial)
        XCTAssertNil(machine.owner)
        XCTAssertEqual(machine.cancellation, .none)
        XCTAssertTrue(machine.errors.isEmpty)
        XCTAssertFalse(machine.hasBegunFinishing)
        XCTAssertFalse(machine.canProduce)
        XCTAssertFalse(machine.isCheckingGate)
        XCTAssertFalse(machine.isWaitingForSlotAgain)
    }

    func testClaimWaitsForDependenciesPlusTheClaimsOwnCount() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.claimed(by: owner, dependencies: 2)
        XCTAssertEqual(machine.phase, .waiting)
        XCTAssertTrue(machine.owner === owner)
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "keepWaiting", "the claim's own count")
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "keepWaiting", "one dependency still unfinished")
        XCTAssertTrue(LifecycleDriver.schedules(machine.dependenciesFinished(1), on: owner))
        XCTAssertEqual(machine.phase, .ready)
        XCTAssertTrue(machine.owner === owner, "the ready stage keeps the owner")
    }

    func testDependenciesFinishingTogetherAreCountedAtOnce() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.claimed(by: owner, dependencies: 2)
        XCTAssertTrue(LifecycleDriver.schedules(machine.dependenciesFinished(3), on: owner))
    }

    func testAPlainDependencyFoundDuringTheClaimIsWaitedFor() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.claimed(by: owner)
        XCTAssertTrue(machine.dependencyAdded())
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "keepWaiting")
        XCTAssertTrue(LifecycleDriver.schedules(machine.dependenciesFinished(1), on: owner))
    }

    func testADependencyAddedAfterACancelMadeItReadyIsNotCounted() {
        var machine = LifecycleDriver.claimed(by: StandInOwner(), dependencies: 1)
        _ = machine.requestCancel(errors: [])
        _ = machine.cancelHandled()
        XCTAssertFalse(machine.dependencyAdded())
        XCTAssertEqual(machine.phase, .ready)
    }

    func testADependencyFinishingAfterTheProcedureStoppedWaitingChangesNothing() {
        var machine = LifecycleDriver.claimed(by: StandInOwner(), dependencies: 1)
        _ = machine.requestCancel(errors: [])
        _ = machine.cancelHandled()
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "notWaiting")
        XCTAssertEqual(machine.phase, .ready)
    }

    func testWithoutAnOwnerTheReadyActionIsToStart() {
        var machine = ProcedureLifecycle()
        _ = machine.claim(owner: nil, dependencies: 0)
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "start")
        XCTAssertNil(machine.owner)
        XCTAssertEqual(machine.phase, .ready)
    }

    func testASecondClaimIsRefusedWithTheReason() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.claimed(by: owner)
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
        XCTAssertEqual(machine.phase, .waiting, "a refused claim changes nothing")
        XCTAssertTrue(machine.owner === owner)
    }

    func testAFinishedProcedureCannotBeClaimed() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.finished(by: owner)
        guard case .refused(.finished) = machine.claim(owner: owner, dependencies: 0) else {
            return XCTFail("a finished procedure cannot be claimed")
        }
    }

    func testAGatedProcedureChecksItsConditionsOnceBeforeBecomingReady() {
        let owner = StandInOwner()
        var machine = ProcedureLifecycle()
        XCTAssertTrue(machine.addGate())
        _ = machine.claim(owner: owner, dependencies: 0)
        XCTAssertFalse(machine.isCheckingGate, "not before its dependencies finished")
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "checkConditions")
        XCTAssertTrue(machine.isCheckingGate)
        XCTAssertEqual(machine.phase, .waiting)
        XCTAssertTrue(LifecycleDriver.schedules(machine.gateOpened(), on: owner))
        XCTAssertFalse(machine.isCheckingGate)
        XCTAssertEqual(machine.phase, .ready)
    }

    func testAGateOpeningAfterACancelMadeItReadyChangesNothing() {
        var machine = ProcedureLifecycle()
        _ = machine.addGate()
        _ = machine.claim(owner: StandInOwner(), dependencies: 0)
        _ = machine.dependenciesFinished(1)
        _ = machine.requestCancel(errors: [])
        _ = machine.cancelHandled()
        XCTAssertEqual(LifecycleDriver.name(machine.gateOpened()), "notWaiting")
        XCTAssertEqual(machine.phase, .ready)
    }

    func testConditionsCannotBeAddedOnceClaimed() {
        var machine = LifecycleDriver.claimed(by: StandInOwner())
        XCTAssertFalse(machine.addGate())
        XCTAssertEqual(LifecycleDriver.name(machine.dependenciesFinished(1)), "schedule", "the refused gate holds nothing back")
    }

    // MARK: - Cancelling

    func testACancelledWaitingProcedureIsReadyAtOnceAndSkipsItsGate() {
        let owner = StandInOwner()
        var machine = ProcedureLifecycle()
        _ = machine.addGate()
        _ = machine.claim(owner: owner, dependencies: 3)
        XCTAssertEqual(machine.requestCancel(errors: [LifecycleDriver.Failure()]), .post)
        XCTAssertEqual(machine.cancellation, .requested)
        XCTAssertEqual(machine.phase, .waiting, "only the cancel event's handling makes it ready")
        XCTAssertTrue(LifecycleDriver.schedules(machine.cancelHandled(), on: owner))
        XCTAssertEqual(machine.cancellation, .cancelled)
        XCTAssertEqual(machine.errors.count, 1)
    }

    func testACancelHandledBeforeTheClaimMakesTheClaimReadyAtOnce() {
        let owner = StandInOwner()
        var machine = ProcedureLifecycle()
        _ = machine.addGate()
        XCTAssertEqual(machine.requestCancel(errors: []), .post)
        XCTAssertEqual(LifecycleDriver.name(machine.cancelHandled()), "notWaiting", "not claimed yet: nothing to make ready")
        XCTAssertEqual(machine.phase, .initial)
        _ = machine.claim(owner: owner, dependencies: 2)
        XCTAssertTrue(LifecycleDriver.schedules(machine.dependenciesFinished(1), on: owner), "waits for neither dependencies nor gate")
    }

    func testACancelOfAReadyProcedureKeepsItReady() {
        var machine = LifecycleDriver.ready(by: StandInOwner())
        XCTAssertEqual(machine.requestCancel(errors: []), .post)
        XCTAssertEqual(LifecycleDriver.name(machine.cancelHandled()), "notWaiting")
        XCTAssertEqual(machine.phase, .ready)
        XCTAssertEqual(machine.cancellation, .cancelled)
    }

    func testOnlyTheFirstCancelIsAccepted() {
        var machine = ProcedureLifecycle()
        XCTAssertEqual(machine.requestCancel(errors: []), .post)
        XCTAssertEqual(machine.requestCancel(errors: [LifecycleDriver.Failure()]), .ignore)
        XCTAssertTrue(machine.errors.isEmpty)
    }

    func testACancelIsIgnoredOnceTheProcedureBeganFinishing() {
        var requested = LifecycleDriver.running(by: StandInOwner())
        _ = requested.requestFinish(errors: [])
        XCTAssertEqual(requested.requestCancel(errors: [LifecycleDriver.Failure()]), .ignore)
        var finishing = LifecycleDriver.running(by: StandInOwner())
        _ = finishing.requestFinish(errors: [])
        _ = finishing.beginFinishing()
        XCTAssertEqual(finishing.requestCancel(errors: []), .ignore)
        var finished = LifecycleDriver.finished(by: StandInOwner())
        XCTAssertEqual(finished.requestCancel(errors: []), .ignore)
        XCTAssertEqual(finished.cancellation, .none)
    }

    // MARK: - Finish requests

    func testAFinishBeforeStartingIsDeferredInEveryStageBeforeRunning() {
        var initial = ProcedureLifecycle()
        XCTAssertEqual(initial.requestFinish(errors: []), .deferred)
        XCTAssertTrue(initial.hasBegunFinishing)
        XCTAssertEqual(initial.phase, .initial)
        var waiting = LifecycleDriver.claimed(by: StandInOwner())
        XCTAssertEqual(waiting.requestFinish(errors: []), .deferred)
        XCTAssertEqual(waiting.phase, .waiting)
        var ready = LifecycleDriver.ready(by: StandInOwner())
        XCTAssertEqual(ready.requestFinish(errors: []), .deferred)
        XCTAssertEqual(ready.phase, .ready)
        XCTAssertEqual(ready.requestFinish(errors: []), .duplicate)
    }

    func testAFinishWhileRunningIsPostedAndASecondIsADuplicate() {
        var machine = LifecycleDriver.running(by: StandInOwner())
        XCTAssertEqual(machine.requestFinish(errors: []), .post)
        XCTAssertTrue(machine.hasBegunFinishing)
        XCTAssertEqual(machine.phase, .started, "the finish event moves it on")
        XCTAssertEqual(machine.requestFinish(errors: []), .duplicate)
        var finished = LifecycleDriver.finished(by: StandInOwner())
        XCTAssertEqual(finished.requestFinish(errors: []), .duplicate)
    }

    func testFinishingCarriesTheCancelErrorsThenTheFinishErrors() {
        let owner = StandInOwner()
        var machine = LifecycleDriver.running(by: owner)
        _ = machine.requestCancel(errors: [LifecycleDriver.Failure(code: 1)])
        _ = machine.cancelHandled()
        _ = machine.requestFinish(errors: [LifecycleDriver.Failure(code: 2)])
        XCTAssertEqual(machine.errors.count, 1, "finish errors join only once it begins finishing")
        guard case .begin(let errors, let finishingOwner) = machine.beginFinishing() else { return XCTFail("finishing") }
        XCTAssertEqual(errors.compactMap { ($0 as? LifecycleDriver.Failure)?.code }, [1, 2])
        XCTAssertTrue(finishingOwner === owner)
        XCTAssertEqual(machine.phase, .finishing)
        XCTAssertEqual(machine.errors.count, 2)
        XCTAssertTrue(machine.owner === owner, "the owner stays until it has finished")
        guard case .alreadyFinishing = machine.beginFinishing() else { return XCTFail("a second finish event is ignored") }
        XCTAssertTrue(machine.finish().cancelled)
        XCTAssertEqual(machine.phase, .finished)
        XCTAssertEqual(machine.errors.count, 2)
        XCTAssertEqual(machine.cancellation, .cancelled)
        XCTAssertNil(machine.owner, "a finished procedure lets its owner go")
        guard case .alreadyFinishing = machine.beginFinishing() else { return XCTFail("nor one after it finished") }
    }

    /// Every procedure carries one: the stages' payloads hold the references first and the
    /// bytes last, so the machine is no larger than the six fields it replaced.
    func testItTellsWhetherItsOwnersSchedulerMayBeSuspendedFromClaimToFinish() {
        XCTAssertFalse(ProcedureLifecycle().ownerSchedulerMayBeSuspended, "an unclaimed procedure has no owner")
        XCTAssertFalse(LifecycleDriver.claimed(by: StandInOwner()).ownerSchedulerMayBeSuspended)
        let suspended = StandInOwner(suspended: true)
        XCTAssertTrue(LifecycleDriver.claimed(by: suspended).ownerSchedulerMayBeSuspended)
        var machine = LifecycleDriver.claimed(by: suspended)
        _ = machine.dependenciesFinished(1)
        XCTAssertTrue(machine.ownerSchedulerMayBeSuspended, "asked of the owner it keeps while ready")
        _ = suspended.scheduler.setSuspended(false)
        XCTAssertFalse(machine.ownerSchedulerMayBeSuspended, "asked, not remembered")
    }

    func testTheMachineFitsInSevenWords() {
        XCTAssertLessThanOrEqual(MemoryLayout<ProcedureLifecycle>.size, 7 * MemoryLayout<Int>.size)
    }

    func testEveryPhaseIsOrdered() {
        let phases: [ProcedurePhase] = [.initial, .waiting, .ready, .started, .executing, .finishing, .finished]
        XCTAssertEqual(phases, phases.sorted())
    }
}
