import Foundation
import ProceduresTesting
import XCTest

/// Finished procedures are released: nothing in the library keeps them (or their observers)
/// alive once they and their dependents have finished.
final class DeallocationTests: ProcedureTestCase {
    private final class WeakBox: @unchecked Sendable {
        weak var procedure: Procedure?
        init(_ procedure: Procedure) { self.procedure = procedure }
    }

    func testFinishedChainAndItsObserversAreReleased() {
        let queue = ProcedureQueue()
        var boxes: [WeakBox] = []
        do {
            var procedures: [Procedure] = []
            for index in 0..<100 {
                let procedure = TestProcedure(name: "p\(index)")
                // An observer capturing the procedure strongly: released at finish.
                procedure.addDidFinishBlockObserver { _, _ in _ = procedure.name }
                if let previous = procedures.last { procedure.addDependency(previous) }
                procedures.append(procedure)
            }
            let cancelled = TestProcedure(name: "cancelled")
            cancelled.cancel()
            procedures.append(cancelled)
            boxes = procedures.map(WeakBox.init)
            wait(forAll: procedures, on: queue)
        }
        // The thread that finished the last procedures may still be returning from the
        // library's callbacks (holding them) when wait(for:) returns: poll until released.
        let finalBoxes = boxes
        let released = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in finalBoxes.allSatisfy { $0.procedure == nil } }, object: nil)
        let result = XCTWaiter().wait(for: [released], timeout: 10)
        let alive = boxes.compactMap { $0.procedure?.name }
        XCTAssertEqual(result, .completed)
        XCTAssertEqual(alive, [], "still alive 10 s after finishing")
    }
}

extension DeallocationTests {
    /// Two procedures made to depend on each other, never enqueued, are freed with their last
    /// outside reference, as Foundation's one-way dependencies are: a dependent is not kept alive by
    /// its dependency.
    func testProceduresDependingOnEachOtherThatNeverRunAreFreed() {
        weak var weakA: Procedure?
        weak var weakB: Procedure?
        do {
            let a = TestProcedure(name: "a")
            let b = TestProcedure(name: "b")
            b.addDependency(a)
            weakA = a
            weakB = b
        }
        XCTAssertNil(weakA, "the dependency leaked")
        XCTAssertNil(weakB, "the dependent leaked")
    }

    private struct Failure: Error {}

    /// A group's scheduler holds the group while it runs: every way a group can end breaks
    /// that hold, so groups that were cancelled (before and while running), retried, repeated
    /// with a wait, or left childless are all released.
    func testGroupsAreReleasedHoweverTheyEnd() {
        var refs: [WeakRef] = []
        do {
            let queue = ProcedureQueue()
            let cancelledEarly = GroupProcedure(operations: [BlockProcedure {}])
            cancelledEarly.cancel()
            let cancelledRunning = GroupProcedure(operations: [DelayProcedure(by: 3600)])
            cancelledRunning.addWillExecuteBlockObserver { group in
                DispatchQueue.global().async { group.cancel() }
            }
            var attempt = 0
            let retry = RetryProcedure(maxAttempts: 2) { () -> BlockProcedure in
                attempt += 1
                return attempt == 1 ? BlockProcedure { throw Failure() } : BlockProcedure {}
            }
            var repeats = 0
            let repeatWithWait = RepeatProcedure(max: 2, wait: .constant(0.001)) { () -> BlockProcedure? in
                repeats += 1
                return BlockProcedure {}
            }
            let childless = GroupProcedure(operations: [])
            let groups: [Procedure] = [cancelledEarly, cancelledRunning, retry, repeatWithWait, childless]
            refs = [WeakRef(cancelledEarly, "cancelled before it started"),
                    WeakRef(cancelledRunning, "cancelled while running"), WeakRef(retry, "retry"),
                    WeakRef(repeatWithWait, "repeat with a wait"), WeakRef(childless, "childless"),
                    WeakRef(queue, "queue")]
            queue.addOperations(groups, waitUntilFinished: false)
            wait(forAll: groups)
        }
        let finalRefs = refs
        let released = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in finalRefs.allSatisfy { $0.object == nil } }, object: nil)
        let result = XCTWaiter().wait(for: [released], timeout: 10)
        XCTAssertEqual(result, .completed, "still alive: \(refs.filter { $0.object != nil }.map(\.name))")
    }

    private final class WeakRef: @unchecked Sendable {
        weak var object: AnyObject?
        let name: String
        init(_ object: AnyObject, _ name: String) { self.object = object; self.name = name }
    }

    /// After a run, a group, its children (procedure and plain), a dependent and the queue
    /// are all released.
    func testGroupsQueuesAndChildrenAreReleasedAfterARun() {
        var refs: [WeakRef] = []
        do {
            let queue = ProcedureQueue()
            let child = BlockProcedure {}
            let plain = BlockOperation {}
            let group = GroupProcedure(operations: [child, plain])
            let dependent = BlockProcedure {}
            dependent.addDependency(group)
            group.addDidFinishBlockObserver { group, _ in _ = group.children }
            refs = [WeakRef(queue, "queue"), WeakRef(child, "child"), WeakRef(plain, "plain"),
                    WeakRef(group, "group"), WeakRef(dependent, "dependent")]
            queue.addOperations([group, dependent], waitUntilFinished: false)
            wait(for: group, dependent)
        }
        let finalRefs = refs
        let released = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in finalRefs.allSatisfy { $0.object == nil } }, object: nil)
        let result = XCTWaiter().wait(for: [released], timeout: 10)
        XCTAssertEqual(result, .completed, "still alive: \(refs.filter { $0.object != nil }.map(\.name))")
    }
}
