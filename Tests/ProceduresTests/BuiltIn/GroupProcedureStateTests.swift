import Foundation
import XCTest

@testable import Procedures

/// What a group's lock guards, driven by hand without threads: when its private queue runs,
/// and when the group finishes. (Whether it was cancelled is the group's own cancellation, so
/// a suspension that depends on it says so instead of deciding.)
final class GroupProcedureStateTests: XCTestCase {
    private typealias State = GroupProcedure.State

    func testAGroupThatHasNotStartedHoldsItsChildrenBackWhateverTheUserSays() {
        var state = State()
        XCTAssertEqual(state.queueSuspension, .suspended)
        state.userSuspended = true
        XCTAssertEqual(state.queueSuspension, .suspended, "even a cancel does not run children before the group starts")
        XCTAssertFalse(state.hasStarted)
    }

    func testAStartedGroupRunsItsChildrenUnlessTheUserSuspendsItAndItIsNotCancelled() {
        var state = State()
        _ = state.start(ownerScheduler: nil)
        XCTAssertTrue(state.hasStarted)
        XCTAssertEqual(state.queueSuspension, .resumed)
        state.userSuspended = true
        XCTAssertEqual(state.queueSuspension, .suspendedUnlessCancelled)
    }

    func testEachSuspensionDecisionIsNumberedAfterTheLast() {
        var state = State()
        let first = state.decideSuspension()
        _ = state.start(ownerScheduler: nil)
        let second = state.decideSuspension()
        XCTAssertEqual(first.suspension, .suspended)
        XCTAssertEqual(second.suspension, .resumed)
        XCTAssertGreaterThan(second.decision, first.decision, "the scheduler applies only the latest")
    }

    func testAGroupFinishesOnceAfterItStartedAndItsLastChildFinished() {
        var state = State()
        let owner = ProcedureScheduler()
        state.unfinishedChildren = 2
        XCTAssertNil(state.finishIfDone(), "not started")
        XCTAssertEqual(state.start(ownerScheduler: owner), 2)
        XCTAssertNil(state.finishIfDone(), "children are unfinished")
        state.unfinishedChildren = 0
        state.childErrors = [ProcedureError.noOutput(name: "x")]
        let finish = state.finishIfDone()
        XCTAssertNotNil(finish)
        XCTAssertTrue(finish?.ownerScheduler === owner, "it stops waiting as a holder of its owner's slot")
        XCTAssertEqual(finish?.errors.count, 1)
        XCTAssertTrue(state.isFinishing)
        XCTAssertNil(state.finishIfDone(), "decided once")
        XCTAssertEqual(state.queueSuspension, .resumed, "a finishing group's queue still runs")
    }

    func testAGroupWithoutChildrenFinishesOnceStarted() {
        var state = State()
        XCTAssertNil(state.finishIfDone())
        XCTAssertEqual(state.start(ownerScheduler: nil), 0)
        XCTAssertNotNil(state.finishIfDone())
    }

    func testAGroupAwaitingItsSubclassFinishFinishesOnlyOnceThatCameWithItsErrors() {
        var state = State()
        state.awaitsFinishCall = true
        _ = state.start(ownerScheduler: nil)
        XCTAssertNil(state.finishIfDone(), "its subclass has not called finish")
        state.childErrors = [ProcedureError.noOutput(name: "x")]
        state.finishCallErrors = [ProcedureError.noOutput(name: "x"), ProcedureError.noOutput(name: "x")]
        XCTAssertEqual(state.finishIfDone()?.errors.count, 3, "its children's errors, then the finish call's")
    }

    func testStartingTwiceKeepsTheFirstStart() {
        var state = State()
        let (owner, other) = (ProcedureScheduler(), ProcedureScheduler())
        _ = state.start(ownerScheduler: owner)
        _ = state.start(ownerScheduler: other)
        XCTAssertTrue(state.finishIfDone()?.ownerScheduler === owner)
    }
}
