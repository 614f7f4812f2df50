import Foundation
import ProceduresTesting
import XCTest

final class RepeatProcedureTests: MisuseRecordingTestCase {
    /// Operations named 1…`count` that record the order they ran in.
    private func numbered(_ count: Int, into log: LockedBox<[Int]>, errors: Bool = false) -> [BlockProcedure] {
        (1...count).map { number in
            let operation = BlockProcedure {
                log.mutate { $0.append(number) }
                if errors { throw TestError("\(number)") }
            }
            operation.name = "\(number)"
            return operation
        }
    }

    func testRunsEveryOperationOfTheIteratorOneAfterAnother() {
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(iterator: numbered(5, into: log).makeIterator())
        wait(for: repeated)
        assertProcedureFinished(repeated)
        XCTAssertEqual(log.value, [1, 2, 3, 4, 5])
        XCTAssertEqual(repeated.count, 5)
        XCTAssertEqual(repeated.current?.name, "5")
        XCTAssertEqual(repeated.previous?.name, "4")
    }

    func testStopsAtTheMaximumCount() {
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(max: 3, iterator: numbered(5, into: log).makeIterator())
        wait(for: repeated)
        XCTAssertEqual(log.value, [1, 2, 3])
    }

    func testEmptyIteratorFinishesAtOnce() {
        let repeated = RepeatProcedure(iterator: [BlockProcedure]().makeIterator())
        wait(for: repeated)
        assertProcedureFinished(repeated)
        XCTAssertEqual(repeated.count, 0)
        XCTAssertNil(repeated.current)
    }

    func testBodyClosureRunsUntilItReturnsNil() {
        let made = LockedBox(0)
        let repeated = RepeatProcedure { () -> BlockProcedure? in
            made.mutate { $0 += 1; return $0 } <= 4 ? BlockProcedure {} : nil
        }
        wait(for: repeated)
        XCTAssertEqual(repeated.count, 4)
    }

    func testKeepsTheErrorsOfEveryOperation() {
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(iterator: numbered(3, into: log, errors: true).makeIterator())
        wait(for: repeated)
        assertProcedureFinishedWithErrors(repeated, count: 3)
        XCTAssertEqual(log.value, [1, 2, 3], "a failure does not stop a repeat")
    }

    func testWaitsBetweenOperationsOnItsClock() {
        let clock = ManualClock()
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(
            wait: .incrementing(initial: 10, increment: 5), clock: clock, iterator: numbered(3, into: log).makeIterator())
        ProcedureQueue().addOperation(repeated)
        advance(clock, by: 10)
        advance(clock, by: 15)
        wait(for: repeated)
        XCTAssertEqual(log.value, [1, 2, 3])
        XCTAssertEqual(clock.now, 25)
    }

    func testNoOperationRunsBeforeItsWaitIsOver() {
        let clock = ManualClock()
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(wait: .constant(10), clock: clock, iterator: numbered(2, into: log).makeIterator())
        ProcedureQueue().addOperation(repeated)
        waitUntilScheduled(on: clock)
        clock.advance(by: 9.999)
        XCTAssertEqual(log.value, [1])
        clock.advance(by: 0.001)
        wait(for: repeated)
        XCTAssertEqual(log.value, [1, 2])
    }

    func testPayloadWaitOverridesTheStrategy() {
        let clock = ManualClock()
        let payloads = [
            RepeatProcedurePayload(operation: BlockProcedure {}),
            RepeatProcedurePayload(operation: BlockProcedure {}, wait: 3),
            RepeatProcedurePayload(operation: BlockProcedure {}, wait: -1),
        ]
        let repeated = RepeatProcedure<BlockProcedure>(wait: .constant(100), clock: clock, payloads: payloads.makeIterator())
        ProcedureQueue().addOperation(repeated)
        advance(clock, by: 3)
        wait(for: repeated)
        assertProcedureFinished(repeated)
        XCTAssertEqual(repeated.count, 3)
        XCTAssertEqual(clock.now, 3)
    }

    func testConfigureBlocksRunOnEachNewOperationInOrder() {
        let log = LockedBox<[String]>([])
        let repeated = RepeatProcedure(iterator: (1...3).map { _ in BlockProcedure {} }.makeIterator())
        repeated.appendConfigureBlock { _ in log.mutate { $0.append("first") } }
        repeated.appendConfigureBlock { _ in log.mutate { $0.append("second") } }
        wait(for: repeated)
        XCTAssertEqual(log.value, Array(repeating: ["first", "second"], count: 3).flatMap { $0 })
    }

    func testReplacedConfigureBlockIsTheOnlyOne() {
        let log = LockedBox<[String]>([])
        let payloads = (1...2).map { number in
            RepeatProcedurePayload(operation: BlockProcedure {}) { _ in log.mutate { $0.append("payload \(number)") } }
        }
        let repeated = RepeatProcedure<BlockProcedure>(payloads: payloads.makeIterator())
        repeated.appendConfigureBlock { _ in log.mutate { $0.append("old") } }
        repeated.replaceConfigureBlock { _ in log.mutate { $0.append("new") } }
        wait(for: repeated)
        XCTAssertEqual(log.value, ["new", "payload 1", "new", "payload 2"])
    }

    func testConfigureRunsTheAppendedBlocksInOrderOnAGivenOperation() {
        let log = LockedBox<[String]>([])
        let repeated = RepeatProcedure { BlockProcedure {} }
        repeated.appendConfigureBlock { operation in log.mutate { $0.append("first \(operation.name ?? "")") } }
        repeated.appendConfigureBlock { operation in log.mutate { $0.append("second \(operation.name ?? "")") } }
        let probe = BlockProcedure {}
        probe.name = "probe"
        repeated.configure(probe)
        XCTAssertEqual(log.value, ["first probe", "second probe"])
        XCTAssertFalse(probe.isEnqueued, "configuring does not add the operation")
        XCTAssertEqual(repeated.count, 0)
    }

    func testConfigureAfterAReplaceRunsOnlyTheReplacement() {
        let log = LockedBox<[String]>([])
        let repeated = RepeatProcedure { BlockProcedure {} }
        repeated.appendConfigureBlock { _ in log.mutate { $0.append("replaced") } }
        repeated.replaceConfigureBlock { _ in log.mutate { $0.append("replacement") } }
        repeated.configure(BlockProcedure {})
        XCTAssertEqual(log.value, ["replacement"])
    }

    func testConfigureWithoutBlocksDoesNothing() {
        let repeated = RepeatProcedure { BlockProcedure {} }
        let probe = BlockProcedure {}
        repeated.configure(probe)
        XCTAssertNil(probe.name)
        XCTAssertTrue(misuse.all.isEmpty)
    }

    func testCancellingCancelsTheCurrentOperationAndAddsNoMore() {
        let clock = ManualClock()
        let made = LockedBox(0)
        let repeated = RepeatProcedure(clock: clock) { () -> TestProcedure? in
            made.mutate { $0 += 1 }
            return TestProcedure(delay: 60, clock: clock)
        }
        ProcedureQueue().addOperation(repeated)
        waitUntilScheduled(on: clock)
        let current = repeated.current
        repeated.cancel()
        wait(for: repeated)
        assertProcedureCancelled(repeated)
        XCTAssertEqual(current?.isCancelled, true)
        XCTAssertEqual(made.value, 1)
    }

    func testCancellingDuringAWaitEndsItAtOnce() {
        let clock = ManualClock()
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(wait: .constant(3600), clock: clock, iterator: numbered(3, into: log).makeIterator())
        ProcedureQueue().addOperation(repeated)
        waitUntilScheduled(on: clock)
        repeated.cancel()
        wait(for: repeated)
        assertProcedureCancelled(repeated)
        XCTAssertEqual(log.value, [1])
        XCTAssertTrue(clock.pendingDeadlines.isEmpty)
    }

    func testRepeatsPlainOperations() {
        let log = LockedBox<[Int]>([])
        let operations = (1...3).map { number in BlockOperation { log.mutate { $0.append(number) } } }
        let repeated = RepeatProcedure(iterator: operations.makeIterator())
        wait(for: repeated)
        assertProcedureFinished(repeated)
        XCTAssertEqual(log.value, [1, 2, 3])
    }

    func testRealTimeRepeatWaitsBetweenOperations() {
        let log = LockedBox<[Int]>([])
        let repeated = RepeatProcedure(wait: .constant(0.02), iterator: numbered(3, into: log).makeIterator())
        let started = Date()
        wait(for: repeated)
        XCTAssertEqual(log.value, [1, 2, 3])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.04)
    }

    func testLongRepeatRunsEveryOperation() {
        // Each operation is added as the previous one finishes: a long repeat must neither
        // grow the stack nor slow down as its list of children grows.
        let total = stressIterations(20_000)
        let ran = LockedBox(0)
        let repeated = RepeatProcedure(max: total) { BlockProcedure { ran.mutate { $0 += 1 } } }
        wait(for: repeated, timeout: 120)
        assertProcedureFinished(repeated)
        XCTAssertEqual(ran.value, total)
    }
}
