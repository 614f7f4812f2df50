import Foundation
import ProceduresTesting
import XCTest

/// `BlockProcedure`: synchronous, throwing and asynchronous blocks; never runs when cancelled
/// before it starts; inside groups, alone and next to plain `Operation`s.
final class BlockProcedureTests: ProcedureTestCase {
    // MARK: - On their own

    func testSynchronousBlockRunsOnceAndFinishes() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure { runs.mutate { $0 += 1 } }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(runs.value, 1)
    }

    func testThrowingBlockFinishesWithTheError() {
        let error = TestError("thrown")
        let procedure = BlockProcedure { throw error }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
    }

    func testAsynchronousBlockFinishesWhenItSaysSo() {
        let events = LockedBox<[String]>([])
        let procedure = BlockProcedure(asyncBlock: { procedure in
            events.mutate { $0.append("block") }
            DispatchQueue.global().async {
                events.mutate { $0.append("work done") }
                procedure.finish()
            }
        })
        procedure.addDidExecuteBlockObserver { procedure in
            events.mutate { $0.append("did execute finished=\(procedure.isFinished)") }
        }
        procedure.addDidFinishBlockObserver { _, _ in events.mutate { $0.append("did finish") } }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        let log = events.value
        XCTAssertEqual(log.first, "block")
        XCTAssertEqual(log.last, "did finish")
        XCTAssertTrue(log.contains("work done"))
        XCTAssertFalse(log.contains("did execute finished=true"), "it did not finish when the block returned: \(log)")
        XCTAssertTrue(log.contains("did execute finished=false"), "the block returned before the procedure finished: \(log)")
    }

    func testAsynchronousBlockCanFinishWithAnError() {
        let error = TestError("async")
        let procedure = BlockProcedure(asyncBlock: { procedure in
            DispatchQueue.global().async { procedure.finish(withError: error) }
        })
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
    }

    func testAsynchronousBlockReceivesItsOwnProcedure() {
        let same = LockedBox<Bool?>(nil)
        let holder = LockedBox<BlockProcedure?>(nil)
        let procedure = BlockProcedure(asyncBlock: { procedure in
            same.mutate { $0 = procedure === holder.value }
            procedure.finish()
        })
        holder.mutate { $0 = procedure }
        wait(for: procedure)
        XCTAssertEqual(same.value, true)
        holder.mutate { $0 = nil }
    }

    func testCancelledBeforeRunningNeverRunsItsBlock() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure { runs.mutate { $0 += 1 } }
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(runs.value, 0)
    }

    func testCancelledAsyncFormBeforeRunningNeverRunsItsBlock() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure(asyncBlock: { procedure in
            runs.mutate { $0 += 1 }
            procedure.finish()
        })
        let gate = makeGate()
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(runs.value, 0)
        gate.finish()
        wait(for: gate)
    }

    func testAsyncBlockThatIgnoresCancelStaysExecutingUntilItFinishes() {
        // Cancelling only delivers the request: an async block that does not react keeps
        // running until it calls finish.
        let started = expectation(description: "block ran")
        let procedure = BlockProcedure(asyncBlock: { _ in started.fulfill() })
        let cancelled = expectation(description: "did cancel")
        procedure.addDidCancelBlockObserver { _, _ in cancelled.fulfill() }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        procedure.cancel()
        wait(for: [cancelled], timeout: 10)
        XCTAssertFalse(procedure.isFinished)
        procedure.finish()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
    }

    func testCancelledAsynchronousBlockNeverRuns() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure(asyncBlock: { procedure in
            runs.mutate { $0 += 1 }
            procedure.finish()
        })
        procedure.cancel(withError: TestError("early"))
        wait(for: procedure)
        assertProcedureCancelled(procedure, withErrors: true)
        XCTAssertEqual(runs.value, 0)
    }

    func testAsynchronousBlockFinishedTwiceIsReported() {
        let procedure = BlockProcedure(asyncBlock: { procedure in
            procedure.finish()
            procedure.finish()
        })
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }

    // MARK: - Inside groups

    func testBlockProceduresInAGroupAllRun() {
        let runs = LockedBox(0)
        let children = (0..<50).map { _ in BlockProcedure { runs.mutate { $0 += 1 } } }
        let group = GroupProcedure(operations: children)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(runs.value, 50)
        XCTAssertTrue(children.allSatisfy(\.isFinished))
    }

    func testThrowingBlockProcedureErrorsAreAggregatedByTheGroup() {
        let group = GroupProcedure(operations: [
            BlockProcedure { throw TestError("one") },
            BlockProcedure {},
            BlockProcedure { throw TestError("two") },
        ])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 2)
        XCTAssertEqual(testErrorIDs(group.errors), ["one", "two"])
    }

    func testGroupWaitsForAsynchronousBlockProcedures() {
        let finishedChildren = LockedBox(0)
        let children = (0..<5).map { i in
            BlockProcedure(asyncBlock: { procedure in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.01 * Double(i + 1)) {
                    finishedChildren.mutate { $0 += 1 }
                    procedure.finish()
                }
            })
        }
        let group = GroupProcedure(operations: children)
        let countAtWillFinish = LockedBox<Int?>(nil)
        group.addWillFinishBlockObserver { _, _ in countAtWillFinish.mutate { $0 = finishedChildren.value } }
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(countAtWillFinish.value, 5)
    }

    func testBlockProcedureAddingSiblingsToItsGroup() {
        let group = GroupProcedure()
        let runs = LockedBox(0)
        let spawner = BlockProcedure {
            for _ in 0..<10 { group.addChild(BlockProcedure { runs.mutate { $0 += 1 } }) }
        }
        group.addChild(spawner)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(runs.value, 10)
        XCTAssertEqual(group.children.count, 11)
    }

    // MARK: - Plain Operation children

    func testGroupWaitsForPlainBlockOperations() {
        let runs = LockedBox(0)
        let operations = (0..<10).map { _ in BlockOperation { runs.mutate { $0 += 1 } } }
        let group = GroupProcedure(operations: operations)
        let finishedAtWillFinish = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in
            finishedAtWillFinish.mutate { $0 = operations.allSatisfy(\.isFinished) }
        }
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(runs.value, 10)
        XCTAssertEqual(finishedAtWillFinish.value, true)
    }

    func testGroupWaitsForASlowPlainOperation() {
        // The block records completion as its last act; the group must not finish before it.
        let done = LockedBox(false)
        let slow = BlockOperation {
            var total = 0
            for i in 0..<200_000 { total &+= i }
            done.mutate { $0 = total != 0 }
        }
        let group = GroupProcedure(operations: [slow])
        let doneAtWillFinish = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in doneAtWillFinish.mutate { $0 = done.value } }
        wait(for: group)
        XCTAssertEqual(doneAtWillFinish.value, true)
    }

    func testPlainOperationAddedDuringExecution() {
        let ran = LockedBox(false)
        let plain = BlockOperation { ran.mutate { $0 = true } }
        let group = GroupProcedure()
        group.addChild(BlockProcedure { group.addChild(plain) })
        let plainFinishedFirst = LockedBox<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _ in plainFinishedFirst.mutate { $0 = plain.isFinished } }
        wait(for: group)
        XCTAssertTrue(ran.value)
        XCTAssertEqual(plainFinishedFirst.value, true)
    }

    func testMixedChildrenWithDependencies() {
        let order = LockedBox<[String]>([])
        let first = BlockProcedure { order.mutate { $0.append("procedure") } }
        let plain = BlockOperation { order.mutate { $0.append("operation") } }
        plain.addDependency(first)
        let last = BlockProcedure { order.mutate { $0.append("last") } }
        last.addDependency(plain)
        let group = GroupProcedure(operations: [last, plain, first])
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(order.value, ["procedure", "operation", "last"])
    }

    // MARK: - Written as ProcedureKit wrote them

    /// ProcedureKit's `BlockProcedure { procedure in … }`: a trailing closure that takes the
    /// procedure is the asynchronous form, and the block can log and finish through it.
    func testTrailingClosureTakingTheProcedureIsTheAsynchronousForm() {
        let ran = LockedBox(false)
        let procedure = BlockProcedure { procedure in
            ran.mutate { $0 = true }
            procedure.log.debug("Hello world")
            DispatchQueue.global().async { procedure.finish() }
        }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertTrue(ran.value)
    }

    /// A did-execute observer runs for either form: after the synchronous block, and after
    /// the asynchronous block returns, while the procedure it has not finished yet still runs.
    func testDidExecuteObserverRunsForBothForms() {
        let finishedAtDidExecute = LockedBox<[String: Bool]>([:])
        let synchronous = BlockProcedure {}
        synchronous.name = "synchronous"
        let asynchronous = BlockProcedure { _ in }  // finished by its did-execute observer below
        asynchronous.name = "asynchronous"
        for procedure in [synchronous, asynchronous] {
            procedure.addDidExecuteBlockObserver { procedure in
                finishedAtDidExecute.mutate { $0[procedure.name ?? ""] = procedure.isFinished }
                if procedure.name == "asynchronous" { procedure.finish() }
            }
        }
        wait(for: synchronous, asynchronous)
        assertProcedureFinished(synchronous)
        assertProcedureFinished(asynchronous)
        XCTAssertEqual(finishedAtDidExecute.value, ["synchronous": false, "asynchronous": false])
    }

    /// The asynchronous form finishes with the error its work hands to `finish(withError:)`.
    func testAsynchronousBlockFinishingWithAnErrorFromAnotherThreadCarriesIt() {
        let error = TestError("later")
        let procedure = BlockProcedure { procedure in
            DispatchQueue.global().async { procedure.finish(withError: error) }
        }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
    }
}
