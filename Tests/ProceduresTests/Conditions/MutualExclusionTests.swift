import Foundation
import Procedures
import ProceduresTesting
import XCTest

private enum Alert {}

final class MutualExclusionTests: XCTestCase {
    private func exclusive(_ name: String, _ categories: String...) -> HeldProcedure {
        let procedure = HeldProcedure(name: name)
        for category in categories { procedure.addCondition(MutuallyExclusive(category: category)) }
        return procedure
    }

    private func uniqueCategory() -> String { "test-\(UUID().uuidString)" }

    func testCategoryNames() {
        XCTAssertEqual(MutuallyExclusive<Alert>().category, String(reflecting: Alert.self))
        XCTAssertEqual(MutuallyExclusive(category: "screen").category, "screen")
        XCTAssertEqual(MutuallyExclusive(category: "screen").mutuallyExclusiveCategories, ["screen"])
    }

    func testSameCategoryOnTwoQueuesRunsOneAtATimeInOrder() {
        let category = uniqueCategory()
        let first = exclusive("first", category)
        let second = exclusive("second", category)
        ProcedureQueue().addOperation(first)
        ProcedureQueue().addOperation(second)
        wait(for: [first.executing], timeout: 10)
        // The second waits, outside its queue, while the first holds the category.
        XCTAssertFalse(second.didExecute)
        XCTAssertTrue(second.stateSummary.contains("exclusivity"), second.stateSummary)
        second.release()
        first.release()
        wait(for: first, second)
        XCTAssertTrue(second.didExecute)
    }

    func testGrantsInTheOrderProceduresAsked() {
        let category = uniqueCategory()
        let order = LockedBox<[Int]>([])
        let holder = exclusive("holder", category)
        let queue = ProcedureQueue()
        queue.addOperation(holder)
        wait(for: [holder.executing], timeout: 10)
        var waiters: [Procedure] = []
        for index in 0..<20 {
            let waiter = BlockProcedure { order.mutate { $0.append(index) } }
            waiter.addCondition(MutuallyExclusive(category: category))
            queue.addOperation(waiter)
            waiters.append(waiter)
        }
        holder.release()
        wait(forAll: waiters + [holder])
        XCTAssertEqual(order.value, Array(0..<20))
    }

    func testACategoryIsFreeWhenTheHoldersDidFinishObserversRun() {
        let category = uniqueCategory()
        let inUseWhenObserved = LockedBox<[Bool]>([])
        let bothObserved = exactCountExpectation("both did-finish observers ran", count: 2)
        let holder = BlockProcedure {}
        holder.addCondition(MutuallyExclusive(category: category))
        let record: @Sendable (BlockProcedure, [any Error]) -> Void = { _, _ in
            let inUse = ExclusivityManager.isInUse(category)
            inUseWhenObserved.mutate { $0.append(inUse) }
            bothObserved.fulfill()
        }
        // One observer added before the holder is enqueued, one while it runs (after the
        // observer a wait for the holder adds, so the test waits for the observers themselves).
        holder.addDidFinishBlockObserver(record)
        holder.addWillExecuteBlockObserver { holder in holder.addDidFinishBlockObserver(record) }
        ProcedureQueue().addOperation(holder)
        wait(for: [bothObserved], timeout: 10)
        XCTAssertEqual(inUseWhenObserved.value, [false, false])
    }

    func testACategoryFreedAndTakenAgainStaysExclusiveWhileOthersAreUsedInBetween() {
        let category = uniqueCategory()
        // Equal names need not share storage: the category is the name, not the string object.
        let sameName = String(category.utf8.map { Character(UnicodeScalar($0)) })
        wait(for: exclusive("once", category).releasedAtOnce())
        XCTAssertFalse(ExclusivityManager.isInUse(category))
        let holder = exclusive("holder", sameName)
        let queue = ProcedureQueue()
        queue.addOperation(holder)
        wait(for: [holder.executing], timeout: 10)
        let other = exclusive("other", uniqueCategory()).releasedAtOnce()
        wait(for: other, on: queue)
        let waiter = exclusive("waiter", category)
        queue.addOperation(waiter)
        let unrelated = TestProcedure(name: "unrelated")
        wait(for: unrelated, on: queue)
        XCTAssertFalse(waiter.didExecute, "the holder still holds the category")
        XCTAssertTrue(waiter.stateSummary.contains("exclusivity"), waiter.stateSummary)
        waiter.release()
        holder.release()
        wait(for: holder, waiter)
        XCTAssertFalse(ExclusivityManager.isInUse(category))
    }

    func testDifferentCategoriesRunAtTheSameTime() {
        let first = exclusive("first", uniqueCategory())
        let second = exclusive("second", uniqueCategory())
        let queue = ProcedureQueue()
        queue.addOperations([first, second], waitUntilFinished: false)
        wait(for: [first.executing, second.executing], timeout: 10)
        first.release()
        second.release()
        wait(for: first, second)
    }

    func testSeveralCategoriesAreTakenAllOrNothingWhateverTheOrder() {
        let (a, b) = (uniqueCategory(), uniqueCategory())
        let holdsA = exclusive("holdsA", a)
        let queue = ProcedureQueue()
        queue.addOperation(holdsA)
        wait(for: [holdsA.executing], timeout: 10)
        let abThenBa = [exclusive("ab", a, b), exclusive("ba", b, a)]
        let onlyB = exclusive("onlyB", b)
        queue.addOperations(abThenBa + [onlyB], waitUntilFinished: false)
        // "ab" waits for a and so does not hold b either; "ba" is behind it for both; "onlyB"
        // is behind both in b's line (first come, first served).
        XCTAssertFalse(abThenBa[0].didExecute)
        for procedure in abThenBa + [onlyB] { procedure.release() }
        holdsA.release()
        wait(forAll: abThenBa + [onlyB, holdsA])
        XCTAssertTrue(abThenBa.allSatisfy(\.didExecute) && onlyB.didExecute)
    }

    func testOneCategoryWaitsBehindAnEarlierRequestForTwoThatIsStuckOnTheOther() {
        // First come, first served in every line: `onlyB` asked for b after `both` did, so it
        // waits for `both`, which holds nothing yet but is first in b's line, waiting for a.
        let (a, b) = (uniqueCategory(), uniqueCategory())
        let order = LockedBox<[String]>([])
        let holdsA = exclusive("holdsA", a)
        let both = exclusive("both", a, b)
        let onlyB = exclusive("onlyB", b)
        both.addWillExecuteBlockObserver { _ in order.mutate { $0.append("both") } }
        onlyB.addWillExecuteBlockObserver { _ in order.mutate { $0.append("onlyB") } }
        let queue = ProcedureQueue()
        queue.addOperation(holdsA)
        wait(for: [holdsA.executing], timeout: 10)
        queue.addOperations([both, onlyB], waitUntilFinished: false)
        // Both are in line (their conditions answer at once, as they are added).
        XCTAssertTrue(both.stateSummary.contains("waiting for exclusivity"), both.stateSummary)
        XCTAssertTrue(onlyB.stateSummary.contains("waiting for exclusivity"), onlyB.stateSummary)
        XCTAssertFalse(onlyB.didExecute, "b is free, but onlyB is behind both in b's line")
        both.release()
        onlyB.release()
        holdsA.release()
        wait(for: holdsA, both, onlyB)
        XCTAssertEqual(order.value, ["both", "onlyB"])
    }

    func testCancellingAWaiterForTwoCategoriesLetsTheOneBehindItRun() {
        let (a, b) = (uniqueCategory(), uniqueCategory())
        let holdsA = exclusive("holdsA", a)
        let queue = ProcedureQueue()
        queue.addOperation(holdsA)
        wait(for: [holdsA.executing], timeout: 10)
        // First in b's line, waiting for a: it holds b for no one else until it leaves.
        let wantsBoth = exclusive("wantsBoth", a, b)
        let onlyB = exclusive("onlyB", b)
        queue.addOperations([wantsBoth, onlyB], waitUntilFinished: false)
        XCTAssertFalse(onlyB.didExecute)
        wantsBoth.cancel()
        // onlyB runs while holdsA still holds a.
        wait(for: [onlyB.executing], timeout: 10)
        XCTAssertFalse(holdsA.isFinished)
        onlyB.release()
        holdsA.release()
        wait(for: holdsA, wantsBoth, onlyB)
        XCTAssertFalse(wantsBoth.didExecute)
        XCTAssertFalse(ExclusivityManager.isInUse(a) || ExclusivityManager.isInUse(b), "released categories are forgotten")
    }

    func testCancelledWhileWaitingLeavesTheLineAtOnce() {
        let category = uniqueCategory()
        let holder = exclusive("holder", category)
        let cancelled = exclusive("cancelled", category)
        let next = exclusive("next", category)
        let queue = ProcedureQueue()
        queue.addOperation(holder)
        wait(for: [holder.executing], timeout: 10)
        queue.addOperations([cancelled, next], waitUntilFinished: false)
        cancelled.cancel()
        // Finishes while the holder still holds the category.
        wait(for: cancelled)
        XCTAssertFalse(cancelled.didExecute)
        XCTAssertFalse(holder.isFinished)
        next.release()
        holder.release()
        wait(for: holder, next)
        XCTAssertTrue(next.didExecute)
        XCTAssertFalse(ExclusivityManager.isInUse(category))
    }

    func testReleasedWhenTheHolderFailsOrIsCancelledWhileRunning() {
        let category = uniqueCategory()
        let failing = TestProcedure(name: "failing", error: TestError())
        failing.addCondition(MutuallyExclusive(category: category))
        let cancelledWhileRunning = HeldProcedure(name: "cancelled while running")
        cancelledWhileRunning.addCondition(MutuallyExclusive(category: category))
        cancelledWhileRunning.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
        let last = TestProcedure(name: "last")
        last.addCondition(MutuallyExclusive(category: category))
        let queue = ProcedureQueue()
        queue.addOperations([failing, cancelledWhileRunning], waitUntilFinished: false)
        wait(for: [cancelledWhileRunning.executing], timeout: 10)
        queue.addOperation(last)
        cancelledWhileRunning.cancel()
        wait(for: failing, cancelledWhileRunning, last)
        XCTAssertTrue(last.didExecute)
    }

    func testReleasedWhenConditionFailsBeforeTakingTheCategory() {
        let category = uniqueCategory()
        let refused = TestProcedure(name: "refused")
        refused.addCondition(FalseCondition())
        refused.addCondition(MutuallyExclusive(category: category))
        let after = TestProcedure(name: "after")
        after.addCondition(MutuallyExclusive(category: category))
        wait(for: refused)
        wait(for: after)
        XCTAssertTrue(after.didExecute)
    }

    func testWaitingForACategoryTakesNoQueueSlot() {
        let category = uniqueCategory()
        let holder = exclusive("holder", category)
        ProcedureQueue().addOperation(holder)
        wait(for: [holder.executing], timeout: 10)
        let narrow = ProcedureQueue()
        narrow.maxConcurrentOperationCount = 1
        let waiting = exclusive("waiting", category)
        narrow.addOperation(waiting)
        let other = TestProcedure(name: "other")
        wait(for: other, on: narrow)
        XCTAssertFalse(waiting.didExecute)
        waiting.release()
        holder.release()
        wait(for: holder, waiting)
    }

    func testChildrenOfDifferentGroupsShareACategory() {
        let category = uniqueCategory()
        let counter = ConcurrencyCounter()
        func child() -> BlockProcedure {
            let procedure = BlockProcedure {
                counter.enter()
                counter.leave()
            }
            procedure.addCondition(MutuallyExclusive(category: category))
            return procedure
        }
        let groups = (0..<3).map { _ in GroupProcedure(operations: (0..<20).map { _ in child() }) }
        wait(forAll: groups)
        XCTAssertEqual(counter.maximum, 1)
        XCTAssertTrue(groups.allSatisfy { !$0.failed })
    }

    func testExclusiveGroupHoldsItsCategoryUntilAllChildrenFinish() {
        let category = uniqueCategory()
        let child = HeldProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        group.addCondition(MutuallyExclusive(category: category))
        let other = TestProcedure(name: "other")
        other.addCondition(MutuallyExclusive(category: category))
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [child.executing], timeout: 10)
        queue.addOperation(other)
        XCTAssertFalse(other.didExecute)
        child.release()
        wait(for: group, other)
        XCTAssertTrue(other.didExecute)
    }
}
