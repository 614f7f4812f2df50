import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// A procedure never holds an exclusivity category while it cannot run for want of a slot: it
/// gives the category back while it waits, and once it has a slot it goes ahead of every
/// procedure that has not taken the category yet. Every wait here is bounded, so a hang fails.
final class CategoryWhileWaitingForSlotTests: MisuseRecordingTestCase {
    private let bound: TimeInterval = 10

    private func category() -> String { "slot-wait-\(UUID().uuidString)" }

    /// A group holds a width-1 queue's only slot while its child waits for a category; a
    /// procedure added meanwhile takes the category first and then waits for the slot. It
    /// must give the category back, or neither would ever finish.
    func testProcedureWaitingForTheSlotAGroupHoldsLetsTheGroupsChildTakeItsCategory() {
        let shared = category()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let first = HeldProcedure(name: "first")
        let child = TestProcedure(name: "child")
        child.addCondition(MutuallyExclusive<Never>(category: shared))
        child.addDependency(first)
        let group = GroupProcedure(operations: [first, child])
        let other = TestProcedure(name: "other")
        other.addCondition(MutuallyExclusive<Never>(category: shared))
        queue.addOperation(group)
        wait(for: [first.executing], timeout: bound)
        queue.addOperation(other)
        // `other` took the free category and found the only slot taken: it gave it back.
        waitUntil("the category is free again") { ExclusivityManager.currentHolder(of: shared) == nil }
        first.release()
        wait(for: group, other, timeout: bound)
        assertProcedureFinished(child)
        assertProcedureFinished(other)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    /// The same shape many times over on a width-4 queue, all added at once: every unit finishes.
    func testManyGroupsAndCategoryTakersOnAWidthFourQueueAllFinish() {
        let units = stressIterations(400)
        let shared = category()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 4
        var all: [Procedure] = []
        var children: [Procedure] = []
        for index in 0..<units {
            let delay = DelayProcedure(by: 0.0005)
            let child = TestProcedure(name: "child-\(index)")
            child.addCondition(MutuallyExclusive<Never>(category: shared))
            child.addDependency(delay)
            let group = GroupProcedure(operations: [delay, child])
            let other = TestProcedure(name: "other-\(index)")
            other.addCondition(MutuallyExclusive<Never>(category: shared))
            all += [group, other]
            children.append(child)
            queue.addOperation(group)
            queue.addOperation(other)
        }
        wait(forAll: all, timeout: 60)
        for procedure in all + children { XCTAssertFalse(procedure.isCancelled, "\(procedure.displayName)") }
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all.prefix(3))")
        XCTAssertFalse(ExclusivityManager.isInUse(shared))
    }

    /// A procedure that gave its category back goes, once it has a slot, ahead of every
    /// procedure that has not taken the category yet (behind the one that holds it).
    func testProcedureThatGaveItsCategoryBackGoesFirstOnceItHasASlot() {
        let shared = category()
        let narrow = ProcedureQueue()
        narrow.maxConcurrentOperationCount = 1
        let wide = ProcedureQueue()
        let order = LockedBox<[String]>([])
        let blocker = HeldProcedure(name: "blocker")
        narrow.addOperation(blocker)
        wait(for: [blocker.executing], timeout: bound)

        let early = BlockProcedure { order.mutate { $0.append("early") } }
        early.name = "early"
        early.addCondition(MutuallyExclusive<Never>(category: shared))
        narrow.addOperation(early)  // takes the free category, finds no slot, gives it back
        waitUntil("early gave its category back") { ExclusivityManager.currentHolder(of: shared) == nil }
        XCTAssertEqual(early.waitingReason.map { "\($0)" }, "ready, waiting for a slot: its queue already runs 1 at once")

        let passer = HeldProcedure(name: "passer")  // passes early: early could not run anyway
        passer.addCondition(MutuallyExclusive<Never>(category: shared))
        wide.addOperation(passer)
        wait(for: [passer.executing], timeout: bound)
        let late = BlockProcedure { order.mutate { $0.append("late") } }
        late.name = "late"
        late.addCondition(MutuallyExclusive<Never>(category: shared))
        wide.addOperation(late)
        waitUntil("late waits behind passer") { late.waitingReason.map { "\($0)" }?.contains("held by passer") == true }

        blocker.release()  // early gets its slot and rejoins the line ahead of late
        waitUntil("early waits, with its slot, behind passer") {
            early.waitingReason.map { "\($0)" } == "waiting for exclusive category \"\(shared)\", held by passer"
        }
        passer.release()
        wait(for: early, late, timeout: bound)
        XCTAssertEqual(order.value, ["early", "late"])
    }

    /// Cancelled while it waits, holding its slot, for the category it gave back: it leaves
    /// the line, finishes, and gives the slot to the next procedure.
    func testProcedureCancelledWhileTakingItsCategoryBackFinishesAndFreesItsSlot() {
        let shared = category()
        let narrow = ProcedureQueue()
        narrow.maxConcurrentOperationCount = 1
        let blocker = HeldProcedure(name: "blocker")
        narrow.addOperation(blocker)
        wait(for: [blocker.executing], timeout: bound)
        let waiter = TestProcedure(name: "waiter")
        waiter.addCondition(MutuallyExclusive<Never>(category: shared))
        narrow.addOperation(waiter)
        waitUntil("waiter gave its category back") { ExclusivityManager.currentHolder(of: shared) == nil }
        let holder = HeldProcedure(name: "holder")
        holder.addCondition(MutuallyExclusive<Never>(category: shared))
        ProcedureQueue().addOperation(holder)
        wait(for: [holder.executing], timeout: bound)
        blocker.release()
        waitUntil("waiter waits, with its slot, for the category") {
            waiter.waitingReason.map { "\($0)" } == "waiting for exclusive category \"\(shared)\", held by holder"
        }
        waiter.cancel()
        let next = TestProcedure(name: "next")
        narrow.addOperation(next)
        wait(for: waiter, next, timeout: bound)
        assertProcedureCancelled(waiter)
        XCTAssertFalse(waiter.didExecute)
        assertProcedureFinished(next)
        holder.release()
        wait(for: holder, timeout: bound)
        XCTAssertFalse(ExclusivityManager.isInUse(shared))
    }

}
