import Foundation
import ProceduresTesting
import XCTest

/// ProcedureKit's sequencing shorthands: `then(do:)`, `then { }`, and `enqueue(on:)`.
final class ThenAndEnqueueTests: MisuseRecordingTestCase {
    /// Records the order in which procedures execute.
    private func recorder() -> (LockedBox<[String]>, (String) -> BlockProcedure) {
        let order = LockedBox<[String]>([])
        return (order, { name in
            let procedure = BlockProcedure { order.mutate { $0.append(name) } }
            procedure.name = name
            return procedure
        })
    }

    func testThenReturnsBothAndTheNextRunsAfterTheReceiver() {
        let (order, make) = recorder()
        let first = make("first")
        let second = make("second")
        let operations = first.then(do: second)
        XCTAssertEqual(operations, [first, second])
        XCTAssertEqual(second.dependencies, [first])
        // Enqueued in the reverse order: only the dependency can put them in order.
        ProcedureQueue().addOperations([second, first], waitUntilFinished: false)
        wait(for: first, second)
        XCTAssertEqual(order.value, ["first", "second"])
    }

    func testThenWithAClosureAddsWhatItReturns() {
        let (order, make) = recorder()
        let first = make("first")
        let second = make("second")
        let operations = first.then { second }
        XCTAssertEqual(operations, [first, second])
        ProcedureQueue().addOperations([second, first], waitUntilFinished: false)
        wait(for: first, second)
        XCTAssertEqual(order.value, ["first", "second"])
    }

    func testThenWithAClosureReturningNilReturnsTheReceiverAlone() {
        let first = BlockProcedure {}
        XCTAssertEqual(first.then { nil }, [first])
        XCTAssertEqual([first].then { nil }, [first])
    }

    func testThenWithAThrowingClosureRethrowsAndAddsNothing() {
        let first = BlockProcedure {}
        XCTAssertThrowsError(try first.then { throw TestError("no next") }) { error in
            XCTAssertEqual(error as? TestError, TestError("no next"))
        }
        let others = [BlockProcedure {}, BlockProcedure {}]
        XCTAssertThrowsError(try others.then { throw TestError("no next") })
    }

    func testThenOnASequenceMakesTheNextWaitForEveryOne() {
        let (order, make) = recorder()
        let one = make("one")
        let two = make("two")
        let three = make("three")
        let last = make("last")
        // `two` holds on until released, so `last` is seen to wait for all three.
        let gate = BlockProcedure(asyncBlock: { _ in })
        two.addDependency(gate)
        let all = [one, two, three].then(do: last)
        XCTAssertEqual(all, [one, two, three, last])
        let queue = ProcedureQueue()
        all.enqueue(on: queue)
        queue.addOperation(gate)
        wait(for: one, three)
        XCTAssertFalse(last.isFinished)
        gate.finish()
        wait(for: two, last)
        XCTAssertEqual(order.value.last, "last")
        XCTAssertEqual(Set(order.value.dropLast()), ["one", "two", "three"])
    }

    func testThenChainsLeftToRight() {
        let (order, make) = recorder()
        let a = make("a")
        let b = make("b")
        let c = make("c")
        let chain = a.then(do: b).then { c }
        XCTAssertEqual(chain, [a, b, c])
        // The last one waits for everything before it.
        XCTAssertEqual(Set(c.dependencies.map(ObjectIdentifier.init)), [ObjectIdentifier(a), ObjectIdentifier(b)])
        chain.reversed().enqueue(on: ProcedureQueue())
        wait(for: a, b, c)
        XCTAssertEqual(order.value, ["a", "b", "c"])
    }

    func testEnqueueAddsEveryOperationToTheQueueInOrder() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let (order, make) = recorder()
        let procedures = (0..<5).map { make("\($0)") }
        procedures.enqueue(on: queue)
        XCTAssertTrue(procedures.allSatisfy(\.isEnqueued))
        wait(forAll: procedures)
        XCTAssertEqual(order.value, ["0", "1", "2", "3", "4"])
    }

    func testThenAfterEnqueueIsReportedAndAddsNoDependency() {
        let first = BlockProcedure {}
        let second = BlockProcedure {}
        let queue = ProcedureQueue()
        queue.addOperation(second)
        _ = first.then(do: second)
        wait(for: second, first)
        XCTAssertEqual(misuse.kinds(about: second), [.invalidDependency])
    }
}
