import Foundation
import ProceduresTesting
import XCTest

/// A subclass with a property the observers read without a cast.
final class CountingProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `label` is immutable; `counter` lives in a LockedBox.
    let label: String
    let counter = LockedBox(0)

    init(label: String) {
        self.label = label
        super.init()
    }

    override func execute() {
        counter.mutate { $0 += 1 }
        finish()
    }
}

/// Block observers receive the concrete subclass, and observers added late still hear
/// about the finish.
final class BlockObserverTests: ProcedureTestCase {
    func testEveryBlockObserverReceivesTheConcreteSubclass() {
        let procedure = CountingProcedure(label: "counted")
        let seen = LockedBox<[String]>([])
        // No casts: `procedure` in each block is a CountingProcedure.
        procedure.addWillExecuteBlockObserver { procedure in
            seen.mutate { $0.append("willExecute \(procedure.label) \(procedure.counter.value)") }
        }
        procedure.addDidExecuteBlockObserver { procedure in
            seen.mutate { $0.append("didExecute \(procedure.label) \(procedure.counter.value)") }
        }
        procedure.addWillFinishBlockObserver { procedure, _ in
            seen.mutate { $0.append("willFinish \(procedure.label)") }
        }
        procedure.addDidFinishBlockObserver { procedure, _ in
            seen.mutate { $0.append("didFinish \(procedure.label)") }
        }
        procedure.addWillCancelBlockObserver { procedure, _ in
            seen.mutate { $0.append("willCancel \(procedure.label)") }
        }
        procedure.addDidCancelBlockObserver { procedure, _ in
            seen.mutate { $0.append("didCancel \(procedure.label)") }
        }
        wait(for: procedure)
        XCTAssertEqual(seen.value, [
            "willExecute counted 0", "didExecute counted 1", "willFinish counted", "didFinish counted",
        ])
    }

    func testCancelBlockObserversReceiveTheSubclass() {
        let procedure = CountingProcedure(label: "cancelled")
        let labels = LockedBox<[String]>([])
        procedure.addWillCancelBlockObserver { procedure, _ in labels.mutate { $0.append(procedure.label) } }
        procedure.addDidCancelBlockObserver { procedure, _ in labels.mutate { $0.append(procedure.label) } }
        procedure.cancel()
        XCTAssertEqual(labels.value, ["cancelled", "cancelled"])
        wait(for: procedure)
        XCTAssertEqual(procedure.counter.value, 0)
    }

    func testAddOperationBlockObserversReceiveTheSubclassAndTheOperation() {
        let produced = BlockOperation {}
        produced.name = "produced"
        let producer = TracedProcedure("producer", trace: CallbackTrace(), observed: false) { procedure in
            try? procedure.produce(produced)
            procedure.finish()
        }
        let seen = LockedBox<[String]>([])
        producer.addWillAddOperationBlockObserver { procedure, operation in
            seen.mutate { $0.append("will \(procedure.trace.entries.count) \(operation.name ?? "")") }
        }
        producer.addDidAddOperationBlockObserver { procedure, operation in
            seen.mutate { $0.append("did \(procedure.trace.entries.count) \(operation.name ?? "")") }
        }
        wait(for: producer)
        XCTAssertEqual(seen.value, ["will 1 produced", "did 1 produced"])
    }

    func testObserversRunInTheOrderTheyWereAdded() {
        let order = LockedBox<[Int]>([])
        let procedure = TestProcedure()
        for index in 0..<5 {
            procedure.addDidFinishBlockObserver { _, _ in order.mutate { $0.append(index) } }
        }
        wait(for: procedure)
        XCTAssertEqual(order.value, [0, 1, 2, 3, 4])
    }

    func testObserverAddedAfterFinishingGetsDidFinishOnce() {
        let procedure = TestProcedure(name: "done", error: TestError("e"))
        wait(for: procedure)
        let trace = CallbackTrace()
        trace.observe(procedure)
        let errorIDs = LockedBox<[String]>([])
        let delivered = expectation(description: "late did-finish delivered")
        procedure.addDidFinishBlockObserver { _, errors in
            errorIDs.mutate { $0 += errors.compactMap { ($0 as? TestError)?.id } }
            delivered.fulfill()
        }
        // Delivered at once, or, if the finishing thread is still handling the procedure's
        // events, right after them: not necessarily before addObserver returns.
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(trace.entries, ["didFinish"])
        XCTAssertEqual(errorIDs.value, ["e"])
    }

    func testObserverAddedDuringExecuteHearsTheFinish() {
        let heard = expectation(description: "late observer heard did-finish")
        let procedure = TracedProcedure("adds observer", trace: CallbackTrace(), observed: false) { procedure in
            procedure.addDidFinishBlockObserver { _, _ in heard.fulfill() }
            procedure.finish()
        }
        wait(for: procedure)
        wait(for: [heard], timeout: 10)
    }

    func testProcedureObserverProtocolDefaultsAreNoOps() {
        struct OnlyFinish: ProcedureObserver {
            let finished: LockedBox<Int>
            func didFinish(_ procedure: Procedure, errors: [any Error]) { finished.mutate { $0 += 1 } }
        }
        let finished = LockedBox(0)
        let procedure = TestProcedure()
        procedure.addObserver(OnlyFinish(finished: finished))
        procedure.cancel()
        wait(for: procedure)
        XCTAssertEqual(finished.value, 1)
    }
}

extension BlockObserverTests {
    /// Both cancel observers receive the errors the procedure was cancelled with, whether it
    /// was cancelled before it started or while it ran.
    func testCancelBlockObserversReceiveTheCancelErrors() {
        for whileRunning in [false, true] {
            let error = TestError(whileRunning ? "while running" : "before start")
            let heard = LockedBox<[String]>([])
            let procedure = whileRunning
                ? BlockProcedure { procedure in procedure.cancel(withError: error) }
                : BlockProcedure { _ in }
            procedure.addWillCancelBlockObserver { _, errors in
                heard.mutate { $0 += errors.compactMap { "will \(($0 as? TestError)?.id ?? "?")" } }
            }
            procedure.addDidCancelBlockObserver { procedure, errors in
                heard.mutate { $0 += errors.compactMap { "did \(($0 as? TestError)?.id ?? "?")" } }
                if whileRunning { procedure.finish() }  // the block left finishing to its cancel
            }
            if !whileRunning { procedure.cancel(withError: error) }
            wait(for: procedure)
            assertProcedureCancelled(procedure, withErrors: true)
            XCTAssertEqual(heard.value, ["will \(error.id)", "did \(error.id)"])
            XCTAssertTrue(testErrors(procedure.errors, equal: [error]))
        }
    }

    /// A plain `BlockOperation` a procedure produces runs, and both add-operation observers
    /// are handed that very operation.
    func testProducedPlainOperationRunsAndAddObserversReceiveIt() {
        let ran = expectation(description: "the produced operation ran")
        let produced = BlockOperation { ran.fulfill() }
        let producer = TestProcedure(name: "producer", produced: produced)
        let handed = LockedBox<[String]>([])
        producer.addWillAddOperationBlockObserver { procedure, operation in
            handed.mutate { $0.append("will \(procedure.name ?? "") \(operation === produced)") }
        }
        producer.addDidAddOperationBlockObserver { procedure, operation in
            handed.mutate { $0.append("did \(procedure.name ?? "") \(operation === produced)") }
        }
        wait(for: producer)
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(handed.value, ["will producer true", "did producer true"])
    }
}

extension BlockObserverTests {
    /// An observer added at the same moment a procedure finishes gets did-finish exactly once.
    func testObserverAddedWhileFinishingGetsDidFinishExactlyOnce() {
        let iterations = stressIterations(300)
        let counts = LockedBox<[Int]>(Array(repeating: 0, count: iterations))
        let delivered = expectation(description: "every late observer heard did-finish")
        delivered.expectedFulfillmentCount = iterations
        let queue = ProcedureQueue()
        for index in 0..<iterations {
            let executing = expectation(description: "executing \(index)")
            let procedure = BlockProcedure(asyncBlock: { _ in executing.fulfill() })
            queue.addOperation(procedure)
            wait(for: [executing], timeout: 10)
            ThreadRace.run(
                { procedure.finish() },
                {
                    procedure.addDidFinishBlockObserver { _, _ in
                        counts.mutate { $0[index] += 1 }
                        delivered.fulfill()
                    }
                })
        }
        wait(for: [delivered], timeout: 20)
        XCTAssertEqual(counts.value.filter { $0 != 1 }.count, 0, "observers that did not hear did-finish exactly once")
    }
}
