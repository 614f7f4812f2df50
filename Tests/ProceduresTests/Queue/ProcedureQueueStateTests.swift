import Foundation
import XCTest

@testable import Procedures

/// What a queue's lock guards, driven by hand without threads: what a member's finish and a
/// barrier's addition decide. The procedures are stand-ins, never run.
final class ProcedureQueueStateTests: XCTestCase {
    private func finish(_ procedure: Procedure, in state: inout ProcedureQueueState) -> ProcedureQueueState.FinishAction {
        let removed = state.members.remove(procedure)
        return state.memberFinished(procedure, removed: removed)
    }

    func testFinishedProceduresWaitForTheNextAddWhileOthersRun() {
        var state = ProcedureQueueState()
        let (a, b, c) = (BlockProcedure {}, BlockProcedure {}, BlockProcedure {})
        for procedure in [a, b, c] { state.members.append(procedure) }
        XCTAssertTrue(finish(a, in: &state).release.isEmpty)
        XCTAssertTrue(finish(b, in: &state).release.isEmpty)
        XCTAssertEqual(state.finishedUnreleased.count, 2, "kept for the next thread that adds one")
        let last = finish(c, in: &state)
        XCTAssertEqual(last.release.count, 3, "the queue is idle: nothing lingers")
        XCTAssertTrue(state.finishedUnreleased.isEmpty)
    }

    func testFinishedProceduresAreReleasedOnceTheLimitWait() {
        var state = ProcedureQueueState()
        let running = BlockProcedure {}
        state.members.append(running)
        let finishing = (0..<ProcedureQueue.unreleasedLimit).map { _ in BlockProcedure {} }
        for procedure in finishing { state.members.append(procedure) }
        for procedure in finishing.dropLast() { XCTAssertTrue(finish(procedure, in: &state).release.isEmpty) }
        XCTAssertEqual(finish(finishing.last!, in: &state).release.count, ProcedureQueue.unreleasedLimit)
        XCTAssertEqual(state.members.count, 1)
    }

    func testAFinishWakesWaitersOnlyOnceTheQueueIsEmpty() {
        var state = ProcedureQueueState()
        let (a, b) = (BlockProcedure {}, BlockProcedure {})
        state.members.append(a)
        state.members.append(b)
        state.idleWaiters = 1
        XCTAssertFalse(finish(a, in: &state).wakesWaiters, "one is still unfinished")
        XCTAssertTrue(finish(b, in: &state).wakesWaiters)

        var unwatched = ProcedureQueueState()
        let c = BlockProcedure {}
        unwatched.members.append(c)
        XCTAssertFalse(finish(c, in: &unwatched).wakesWaiters, "nobody waits")
    }

    func testAFinishOfAProcedureThatIsNoMemberReleasesNothingOfIt() {
        var state = ProcedureQueueState()
        let (member, stranger) = (BlockProcedure {}, BlockProcedure {})
        state.members.append(member)
        let action = state.memberFinished(stranger, removed: nil)
        XCTAssertTrue(action.release.isEmpty)
        XCTAssertTrue(state.finishedUnreleased.isEmpty)
    }

    func testABarrierWaitsForEveryEarlierMemberAndReplacesThePreviousBarrier() {
        var state = ProcedureQueueState()
        let (a, b) = (BlockProcedure {}, BlockProcedure {})
        state.members.append(a)
        state.members.append(b)
        let first = BarrierProcedure(block: {})
        let added = state.barrierAdded(first)
        XCTAssertNil(added.previous)
        XCTAssertEqual(added.earlier.map(ObjectIdentifier.init), [a, b].map(ObjectIdentifier.init))
        XCTAssertTrue(state.pendingBarrier === first)
        XCTAssertEqual(state.members.count, 3, "the barrier is a member")

        let second = BarrierProcedure(block: {})
        let next = state.barrierAdded(second)
        XCTAssertTrue(next.previous === first)
        XCTAssertEqual(next.earlier.count, 3, "the earlier barrier included")
        XCTAssertTrue(state.pendingBarrier === second)
    }

    func testOnlyTheLastBarriersOwnFinishClearsIt() {
        var state = ProcedureQueueState()
        let a = BlockProcedure {}
        state.members.append(a)
        let barrier = BarrierProcedure(block: {})
        _ = state.barrierAdded(barrier)
        _ = finish(a, in: &state)
        XCTAssertTrue(state.pendingBarrier === barrier, "a member's finish leaves it")
        _ = finish(barrier, in: &state)
        XCTAssertNil(state.pendingBarrier)
    }
}
