import Foundation
import ProceduresTestSupport
import XCTest

@testable import Procedures

/// A procedure that finishes inside its run on a drain loop hands its categories' next holder
/// to that loop; whatever user code runs on that thread before the loop's next step (the
/// finished procedure's did-finish observers, its queue's delegate, its group's hooks) cannot
/// keep the next holder from starting.
final class CategoryHandoffTests: XCTestCase {
    private let patience: TimeInterval = 10

    /// `first` holds `category` until `second` has joined its line; `waitInUserCode` is then
    /// called after `first` finishes, on its thread, and waits there for `second` to run.
    private func pair(category: String, firstFails: Bool = false) -> (first: BlockProcedure, second: BlockProcedure, secondJoined: ArrivalCount, secondRan: ArrivalCount) {
        let (secondJoined, secondRan) = (ArrivalCount(), ArrivalCount())
        let first = BlockProcedure {
            _ = secondJoined.wait(for: 1, seconds: 10)
            if firstFails { throw HandoffTestError() }
        }
        first.addCondition(MutuallyExclusive(category: category))
        let second = BlockProcedure { secondRan.arrive() }
        second.addCondition(MutuallyExclusive(category: category))
        return (first, second, secondJoined, secondRan)
    }

    func testTheNextHolderStartsWhileADidFinishObserverOfTheLastHoldsItsThread() {
        let (first, second, secondJoined, secondRan) = pair(category: "handoff-observer-\(UUID())")
        let sawSecondRun = LockedBox<Bool?>(nil)
        first.addDidFinishBlockObserver { [patience] _, _ in sawSecondRun.mutate { $0 = secondRan.wait(for: 1, seconds: patience) } }
        let bothFinished = ArrivalCount()
        for procedure in [first, second] { procedure.addDidFinishBlockObserver { _, _ in bothFinished.arrive() } }
        let queue = ProcedureQueue()
        queue.addOperation(first)
        queue.addOperation(second)  // joins the category's line behind `first`
        secondJoined.arrive()
        XCTAssertTrue(bothFinished.wait(for: 2, seconds: patience * 2))
        XCTAssertEqual(sawSecondRun.value, true, "the observer waited on the thread of the loop the second was handed to, and the second ran")
    }

    func testTheNextHolderStartsWhileTheQueueDelegateHoldsTheThread() {
        let (first, second, secondJoined, secondRan) = pair(category: "handoff-delegate-\(UUID())")
        let delegate = WaitingDelegate(waitingAfter: first, for: secondRan, patience: patience)
        let queue = ProcedureQueue()
        queue.delegate = delegate
        queue.addOperation(first)
        queue.addOperation(second)
        secondJoined.arrive()
        XCTAssertTrue(delegate.done.wait(for: 1, seconds: patience * 2))
        XCTAssertEqual(delegate.sawSecondRun.value, true)
        queue.waitUntilAllOperationsAreFinished()
    }

    func testTheNextHolderStartsWhileAGroupsHookHoldsTheThread() {
        // The group calls `transformChildErrors` for a child that failed.
        let (first, second, secondJoined, secondRan) = pair(category: "handoff-group-\(UUID())", firstFails: true)
        let group = WaitingGroup(operations: [first, second], waitingAfter: first, for: secondRan, patience: patience)
        let finished = ArrivalCount()
        group.addDidFinishBlockObserver { _, _ in finished.arrive() }
        ProcedureQueue().addOperation(group)
        // The group adds its children when it starts: the second joins the line behind the first.
        waitUntil("the second waits for the category") { second.conditionGateSummary != nil || second.isFinished }
        secondJoined.arrive()
        XCTAssertTrue(finished.wait(for: 1, seconds: patience * 2))
        XCTAssertEqual(group.sawSecondRun.value, true)
    }
}

private struct HandoffTestError: Error {}

private final class WaitingDelegate: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked: every stored property is immutable or a locked box.
    let first: Procedure
    let secondRan: ArrivalCount
    let patience: TimeInterval
    let sawSecondRun = LockedBox<Bool?>(nil)
    let done = ArrivalCount()

    init(waitingAfter first: Procedure, for secondRan: ArrivalCount, patience: TimeInterval) {
        (self.first, self.secondRan, self.patience) = (first, secondRan, patience)
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
        guard procedure === first else { return }
        sawSecondRun.mutate { $0 = secondRan.wait(for: 1, seconds: patience) }
        done.arrive()
    }
}

private final class WaitingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked: every stored property is immutable or a locked box.
    let first: Procedure
    let secondRan: ArrivalCount
    let patience: TimeInterval
    let sawSecondRun = LockedBox<Bool?>(nil)

    init(operations: [Operation], waitingAfter first: Procedure, for secondRan: ArrivalCount, patience: TimeInterval) {
        (self.first, self.secondRan, self.patience) = (first, secondRan, patience)
        super.init(operations: operations)
    }

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        if child === first { sawSecondRun.mutate { $0 = secondRan.wait(for: 1, seconds: patience) } }
        return errors
    }
}
