import Foundation
import XCTest

@testable import Procedures

/// A condition gate's steps, driven by hand without threads: each event on
/// ``ConditionGateStateMachine`` and what it returns. The procedures are stand-ins, never run.
final class ConditionGateStateMachineTests: XCTestCase {
    private typealias Machine = ConditionGateStateMachine

    private func describe(_ waiting: ConditionGate.Waiting) -> String {
        switch waiting {
        case .nothing: return "nothing"
        case .queueResume: return "queueResume"
        case .dependencies(let dependencies): return "dependencies(\(dependencies.count))"
        case .condition(let index): return "condition(\(index))"
        case .exclusivity(let categories): return "exclusivity(\(categories.joined(separator: ",")))"
        }
    }

    private func isSatisfied(_ result: ConditionResult?) -> Bool {
        if case .satisfied? = result { return true }
        return false
    }

    // MARK: - Before the steps

    func testAGateThatHasNotBegunWaitsForNothingAndClaimsNothing() {
        var machine = Machine()
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "nothing")
        XCTAssertFalse(machine.hasClaimed)
        XCTAssertFalse(machine.isTakingCategoriesBack)
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .duplicate, "no condition is being evaluated")
        XCTAssertFalse(machine.finished(), "nothing to give back")
    }

    func testAParkedGateWaitsForItsQueueToResume() {
        var machine = Machine()
        machine.park()
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "queueResume")
    }

    // MARK: - Conditions' dependencies

    func testGatheringWaitsForEachDependencyAndTheCountHeldWhileObserving() {
        var machine = Machine()
        let (a, b) = (BlockProcedure {}, BlockProcedure {})
        XCTAssertTrue(machine.beginGathering([a, b], produced: [b], cancelled: false))
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "dependencies(2)")
        XCTAssertFalse(machine.dependencyFinished())
        XCTAssertFalse(machine.dependencyFinished())
        XCTAssertTrue(machine.dependencyFinished(), "the count held while the observers were added is the last")
    }

    func testACancelledProcedureBeginsNoStep() {
        var machine = Machine()
        machine.park()
        XCTAssertFalse(machine.beginGathering([BlockProcedure {}], produced: [], cancelled: true))
        XCTAssertFalse(machine.beginEvaluating(0, cancelled: true))
        XCTAssertFalse(machine.claim(cancelled: true))
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "queueResume", "nothing changed")
        XCTAssertFalse(machine.hasClaimed)
    }

    func testACancelWhileGatheringHandsOverTheProducedProceduresOnceAndTheCountGoesOn() {
        var machine = Machine()
        let (waited, made) = (BlockProcedure {}, BlockProcedure {})
        _ = machine.beginGathering([waited, made], produced: [made], cancelled: false)
        let action = machine.cancelled()
        XCTAssertEqual(action.produced.count, 1)
        XCTAssertTrue(action.produced.first === made)
        XCTAssertFalse(action.leavesLines, "it asked for no categories")
        XCTAssertTrue(machine.cancelled().produced.isEmpty, "cancelled once")
        XCTAssertFalse(machine.dependencyFinished())
        XCTAssertFalse(machine.dependencyFinished())
        XCTAssertTrue(machine.dependencyFinished(), "the dependencies still count down to the step that stops")
    }

    func testAFinishWhileGatheringLetsGoOfTheProducedProcedures() {
        var machine = Machine()
        let made = BlockProcedure {}
        _ = machine.beginGathering([made], produced: [made], cancelled: false)
        XCTAssertFalse(machine.finished())
        XCTAssertTrue(machine.cancelled().produced.isEmpty)
    }

    // MARK: - Answers

    func testAnAnswerBeforeEvaluateReturnsIsTakenByTheLoop() {
        var machine = Machine()
        XCTAssertTrue(machine.beginEvaluating(0, cancelled: false))
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "condition(0)")
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .none, "the loop takes it")
        XCTAssertTrue(isSatisfied(machine.evaluateReturned()))
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .duplicate)
    }

    func testAnAnswerGivenAtOnceIsReceivedAndAnyLaterAnswerIsADuplicate() {
        var machine = Machine()
        XCTAssertTrue(machine.beginEvaluating(2, cancelled: false))
        machine.answeredAtOnce()
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "condition(2)", "until the next step")
        XCTAssertEqual(machine.answer(.satisfied, index: 2), .duplicate, "no completion was handed out")
        XCTAssertTrue(machine.beginEvaluating(3, cancelled: false))
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "condition(3)")
    }

    func testAnAnswerAfterEvaluateReturnedResumesTheGateOnce() {
        var machine = Machine()
        _ = machine.beginEvaluating(1, cancelled: false)
        XCTAssertNil(machine.evaluateReturned(), "no answer yet")
        XCTAssertEqual(machine.answer(.ignored, index: 1), .resume)
        XCTAssertEqual(machine.answer(.satisfied, index: 1), .duplicate)
    }

    func testTwoAnswersBeforeEvaluateReturnsKeepTheFirst() {
        var machine = Machine()
        _ = machine.beginEvaluating(0, cancelled: false)
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .none)
        XCTAssertEqual(machine.answer(.ignored, index: 0), .duplicate)
        XCTAssertTrue(isSatisfied(machine.evaluateReturned()))
    }

    func testAnAnswerOfAnEarlierConditionIsADuplicate() {
        var machine = Machine()
        _ = machine.beginEvaluating(0, cancelled: false)
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .none)
        _ = machine.evaluateReturned()
        _ = machine.beginEvaluating(1, cancelled: false)
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .duplicate)
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "condition(1)")
    }

    func testAnAwaitedAnswerAfterACancelOrFinishStillResumesOnceWithoutMisuse() {
        var machine = Machine()
        _ = machine.beginEvaluating(0, cancelled: false)
        XCTAssertNil(machine.evaluateReturned())
        XCTAssertTrue(machine.cancelled().produced.isEmpty)
        XCTAssertFalse(machine.finished())
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .resume, "its first answer is no misuse; the next step stops")
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .duplicate)
    }

    // MARK: - Categories

    func testAClaimWaitsForItsCategoriesAndIsGivenBackWhenItFinishes() {
        var machine = Machine()
        XCTAssertTrue(machine.claim(cancelled: false))
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "exclusivity(disk,net)")
        XCTAssertTrue(machine.hasClaimed)
        XCTAssertEqual(machine.answer(.satisfied, index: 0), .duplicate, "every condition answered already")
        XCTAssertTrue(machine.finished(), "gives its categories back")
        XCTAssertFalse(machine.hasClaimed)
        XCTAssertEqual(describe(machine.waiting(claiming: ["disk", "net"])), "nothing")
        XCTAssertFalse(machine.finished(), "given back once")
    }

    func testACancelWhileClaimingLeavesTheLinesButKeepsTheClaimUntilItFinishes() {
        var machine = Machine()
        _ = machine.claim(cancelled: false)
        let action = machine.cancelled()
        XCTAssertTrue(action.leavesLines)
        XCTAssertTrue(action.produced.isEmpty)
        XCTAssertTrue(machine.hasClaimed, "categories it holds are kept until it finishes")
        XCTAssertTrue(machine.finished())
    }

    func testAStartWaitingForCategoriesToComeBackIsTakenOnce() {
        var machine = Machine()
        let owner = StandInOwner()
        _ = machine.claim(cancelled: false)
        XCTAssertNil(machine.takeReturningStart(), "it waits for nothing yet")
        machine.awaitCategoriesBack(.init(owner: owner))
        XCTAssertTrue(machine.isTakingCategoriesBack)
        XCTAssertTrue(machine.hasClaimed)
        XCTAssertTrue(machine.takeReturningStart()?.scheduler === owner.scheduler, "it starts on its owner's scheduler")
        XCTAssertFalse(machine.isTakingCategoriesBack)
        XCTAssertNil(machine.takeReturningStart(), "taken once: a racing cancel finds nothing to start")
        XCTAssertTrue(machine.hasClaimed, "it holds its categories again")
    }
}
