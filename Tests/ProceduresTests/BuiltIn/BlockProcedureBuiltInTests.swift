import Foundation
import ProceduresTesting
import XCTest

final class BlockProcedureBuiltInTests: MisuseRecordingTestCase {
    // MARK: - On their own

    func testSynchronousBlockRunsOnceAndFinishes() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure { runs.mutate { $0 += 1 } }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(runs.value, 1)
    }

    func testThrowingBlockFailsWithItsError() {
        let procedure = BlockProcedure { throw TestError("thrown") }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(procedure.errors.first as? TestError, TestError("thrown"))
    }

    func testAsynchronousBlockFinishesLater() {
        let procedure = BlockProcedure(asyncBlock: { procedure in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { procedure.finish() }
        })
        let executed = LockedBox(false)
        procedure.addDidExecuteBlockObserver { procedure in executed.mutate { $0 = !procedure.isFinished } }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertTrue(executed.value, "the block returned before the procedure finished")
    }

    func testAsynchronousBlockFinishingWithError() {
        let procedure = BlockProcedure(asyncBlock: { procedure in
            DispatchQueue.global().async { procedure.finish(withError: TestError("async")) }
        })
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(builtInTestErrorIDs(procedure.errors), ["async"])
    }

    func testCancelledBeforeRunningNeverRunsItsBlock() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure { runs.mutate { $0 += 1 } }
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(runs.value, 0)
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
        XCTAssertEqual(builtInTestErrorIDs(group.errors), ["one", "two"])
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
}
