import Foundation
import ProceduresTestSupport
import XCTest

@testable import Procedures

/// A claim decides and returns; acting on the decision is the claimer's. A queue's add never
/// has the procedure call back into the queue or its scheduler.
final class ProcedureClaimTests: XCTestCase {
    func testAClaimReturnsThatTheProcedureIsReadyWithoutSchedulingIt() {
        // Suspended, so that a procedure submitted by mistake would stay in the line to be seen.
        let owner = StandInOwner(suspended: true)
        let procedure = BlockProcedure {}
        guard case .claimed(.schedule(let scheduler)) = procedure.claim(owner: owner) else {
            return XCTFail("a procedure with nothing to wait for is ready at once")
        }
        XCTAssertTrue(scheduler === owner.scheduler)
        XCTAssertEqual(owner.scheduler.counts.waiting, 0, "the claim itself submitted the procedure")
        XCTAssertTrue(procedure.isEnqueued)
        XCTAssertFalse(procedure.isExecuting)
    }

    func testTheOwnerHandsAProcedureThatIsReadyAtOnceToItsScheduler() {
        let owner = StandInOwner(suspended: true)
        let procedure = BlockProcedure {}
        XCTAssertTrue(owner.claim(procedure))
        XCTAssertEqual(owner.scheduler.counts.waiting, 1)
    }

    func testAProcedureThatBecomesReadyLaterSubmitsItselfToItsOwnersScheduler() {
        let owner = StandInOwner(suspended: true)
        let dependency = BlockProcedure {}
        let procedure = BlockProcedure {}
        procedure.addDependency(dependency)
        guard case .claimed(.keepWaiting) = procedure.claim(owner: owner) else {
            return XCTFail("a procedure with an unfinished dependency is not ready")
        }
        XCTAssertEqual(owner.scheduler.counts.waiting, 0)
        dependency.start()  // by hand: it runs and finishes on this thread
        XCTAssertTrue(dependency.isFinished)
        XCTAssertEqual(owner.scheduler.counts.waiting, 1, "the last dependency's finish submits it")
    }

    func testAClaimLeavesTheConditionsUnchecked() {
        let owner = StandInOwner()
        let evaluations = Counter()
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition {
            _ = evaluations.increment()
            return true
        })
        guard case .claimed(.checkConditions) = procedure.claim(owner: owner) else {
            return XCTFail("a procedure with a condition checks it before it is ready")
        }
        XCTAssertEqual(evaluations.value, 0, "the claim evaluated the condition")
        XCTAssertEqual(owner.scheduler.counts.waiting, 0)
    }

    func testASecondClaimIsRefusedAndSaysWhy() {
        let owner = StandInOwner(suspended: true)
        let procedure = BlockProcedure {}
        XCTAssertTrue(owner.claim(procedure))
        guard case .alreadyInThisQueue = procedure.claim(owner: owner) else {
            return XCTFail("a second claim by the same owner")
        }
        guard case .inAnotherQueue = procedure.claim(owner: StandInOwner()) else {
            return XCTFail("a claim by another owner")
        }
        XCTAssertEqual(owner.scheduler.counts.waiting, 1, "a refused claim submitted it again")
    }
}
