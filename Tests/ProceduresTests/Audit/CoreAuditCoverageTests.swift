import Foundation
import Procedures
import ProceduresTesting
import XCTest

// Probes written during the core audit that PASS: they add coverage for races, depth and
// release that the other suites do not exercise this way.
final class CoreAuditCoverageTests: MisuseRecordingTestCase {

    /// An observer added at the same moment a procedure finishes gets did-finish exactly once.
    func testObserverAddedWhileFinishingGetsDidFinishExactlyOnce() {
        let iterations = stressIterations(300)
        let counts = LockedBox<[Int]>(Array(repeating: 0, count: iterations))
        let delivered = expectation(description: "every late observer heard did-finish")
        delivered.expectedFulfillmentCount = iterations
        let queue = ProcedureQueue()
        for index in 0..<iterations {
            let rendezvous = AuditRendezvous()
            let procedure = BlockProcedure(asyncBlock: { procedure in
                DispatchQueue.global().async {
                    rendezvous.arriveAndSpin()
                    procedure.finish()
                }
            })
            queue.addOperation(procedure)
            DispatchQueue.global().async {
                rendezvous.arriveAndSpin()
                procedure.addDidFinishBlockObserver { _, _ in
                    counts.mutate { $0[index] += 1 }
                    delivered.fulfill()
                }
            }
        }
        wait(for: [delivered], timeout: 20)
        XCTAssertEqual(counts.value.filter { $0 != 1 }.count, 0, "observers that did not hear did-finish exactly once")
    }

    /// Cancel, finish and the queue's start racing: callbacks never overlap, did-finish runs
    /// once, and a procedure that executed was not cancelled before it started.
    func testCancelFinishAndStartRacingNeverOverlapCallbacks() {
        let iterations = stressIterations(300)
        let recorder = ProcedureEventRecorder()
        let queue = ProcedureQueue()
        var procedures: [TestProcedure] = []
        for index in 0..<iterations {
            let procedure = TestProcedure(name: "race \(index)", recorder: recorder)
            let rendezvous = AuditRendezvous()
            procedures.append(procedure)
            DispatchQueue.global().async {
                rendezvous.arriveAndSpin()
                procedure.cancel(withError: TestError("cancel"))
            }
            DispatchQueue.global().async {
                rendezvous.arriveAndSpin()
                queue.addOperation(procedure)
            }
        }
        wait(forAll: procedures, timeout: 20)
        XCTAssertEqual(recorder.overlaps, [])
        for procedure in procedures {
            let events = recorder.events(of: procedure)
            XCTAssertEqual(events.filter { $0 == .didFinish }.count, 1, procedure.stateSummary)
            XCTAssertEqual(events.filter { $0 == .willCancel }.count, procedure.isCancelled ? 1 : 0)
            if procedure.isCancelled, let cancelAt = events.firstIndex(of: .willCancel),
                let executeAt = events.firstIndex(of: .execute)
            {
                // Cancelled after execute began is fine; before it, execute must not run.
                XCTAssertLessThan(executeAt, cancelAt, "\(procedure.stateSummary): executed after being cancelled")
            }
        }
    }

    /// 1,000 nested groups, cancelled from outside while the innermost child runs, all finish.
    func testThousandNestedGroupsCancelledFromOutsideAllFinish() {
        let leaf = BlockProcedure(asyncBlock: { procedure in
            procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
        })
        let executing = expectation(description: "leaf executing")
        leaf.addDidExecuteBlockObserver { _ in executing.fulfill() }
        var groups: [GroupProcedure] = []
        var inner: Procedure = leaf
        for _ in 0..<1_000 {
            let group = GroupProcedure(operations: [inner])
            groups.append(group)
            inner = group
        }
        let outer = groups[groups.count - 1]
        ProcedureQueue().addOperation(outer)
        wait(for: [executing], timeout: 20)
        outer.cancel(withError: TestError("stop"))
        wait(forAll: groups + [leaf], timeout: 20)
        XCTAssertTrue(groups.allSatisfy { $0.isCancelled && $0.isFinished })
        XCTAssertTrue(leaf.isCancelled)
    }

    /// One group with 100,000 children finishes, with every child finished.
    func testHundredThousandChildrenInOneGroupFinish() {
        let count = stressIterations(100_000)
        let ran = LockedBox(0)
        let children = (0..<count).map { _ in BlockProcedure { ran.mutate { $0 += 1 } } }
        let group = GroupProcedure(operations: children)
        wait(for: group, timeout: 60)
        assertProcedureFinished(group)
        XCTAssertEqual(ran.value, count)
        XCTAssertEqual(group.children.count, count)
    }

    /// Nested groups cancelled while another thread keeps adding children to every level:
    /// everything finishes and every late child is cancelled, not executed.
    func testNestedGroupsCancelledWhileChildrenAreAddedAllFinish() {
        let iterations = stressIterations(200)
        var everything: [Procedure] = []
        for _ in 0..<iterations {
            let inner = GroupProcedure(operations: [DelayProcedure(by: 10)])
            let outer = GroupProcedure(operations: [inner, DelayProcedure(by: 10)])
            let queue = ProcedureQueue()
            queue.addOperation(outer)
            let rendezvous = AuditRendezvous()
            let late = LockedBox<[LateChild]>([])
            let done = DispatchGroup()
            done.enter()
            DispatchQueue.global().async {
                rendezvous.arriveAndSpin()
                for index in 0..<8 {
                    let child = LateChild(name: "late \(index)")
                    (index.isMultiple(of: 2) ? inner : outer).addChild(child)
                    late.mutate { $0.append(child) }
                }
                done.leave()
            }
            rendezvous.arriveAndSpin()
            outer.cancel()
            done.wait()
            // A child refused by a group that had begun finishing is never enqueued: it must
            // be reported (about the group), and it is left out of the wait (which would run it).
            let refused = late.value.filter { !$0.isEnqueued }
            for (group, parity) in [(inner, 0), (outer, 1)] {
                let refusedHere = refused.filter { Int($0.name!.split(separator: " ")[1])! % 2 == parity }.count
                XCTAssertEqual(
                    misuse.kinds(about: group).filter { $0 == .childAddedToFinishingGroup }.count, refusedHere)
            }
            everything += [outer, inner] + late.value.filter(\.isEnqueued)
        }
        wait(forAll: everything, timeout: 30)
        // A late child was cancelled before it started (and never executed), or it executed
        // (and the cancel, if it came, was delivered while it ran): never executed after its
        // cancellation, never neither.
        for child in everything.compactMap({ $0 as? LateChild }) {
            XCTAssertTrue(child.isCancelled || child.didExecute, child.stateSummary)
            XCTAssertFalse(child.wasCancelledWhenExecuteBegan, "\(child.stateSummary) executed after its cancellation")
        }
        XCTAssertTrue(everything.allSatisfy(\.isFinished))
    }

    /// Remembers whether it was already cancelled when `execute()` began (the library must
    /// never call `execute()` on a procedure whose cancellation has been delivered).
    private final class LateChild: TestProcedure, @unchecked Sendable {
        private let cancelledAtExecute = LockedBox(false)
        var wasCancelledWhenExecuteBegan: Bool { cancelledAtExecute.value }
        override func execute() {
            let cancelled = isCancelled
            cancelledAtExecute.mutate { $0 = cancelled }
            super.execute()
        }
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
