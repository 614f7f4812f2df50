import Foundation
import ProceduresTesting
import XCTest

/// `produce(_:)`: a running procedure adds an operation to its own queue, with will/did-add
/// observers, before a later `finish()` from the same callback.
final class ProduceTests: CoreTestCase {
    func testProducedOperationGoesToTheProceduresQueueBeforeItFinishes() {
        let delegate = CoreRecordingDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let produced = TestProcedure(name: "produced")
        let trace = CoreTrace()
        let producer = CoreTracedProcedure("producer", trace: trace) { procedure in
            do { try procedure.produce(produced) } catch { XCTFail("produce threw \(error)") }
            procedure.finish()
        }
        let addedOperations = LockedBox<[String]>([])
        producer.addWillAddOperationBlockObserver { producer, operation in
            addedOperations.mutate { $0.append("will \(operation.name ?? "?") producerFinished=\(producer.isFinished)") }
        }
        producer.addDidAddOperationBlockObserver { producer, operation in
            addedOperations.mutate { $0.append("did \(operation.name ?? "?") producerFinished=\(producer.isFinished)") }
        }

        queue.addOperation(producer)
        wait(for: producer)
        wait(for: produced)

        assertProcedureFinished(producer)
        assertProcedureFinished(produced)
        XCTAssertEqual(trace.entries, [
            "willExecute", "execute", "didExecute", "willAdd", "didAdd",
            "procedureWillFinish(finished: false)", "willFinish",
            "procedureDidFinish(finished: true)", "didFinish",
        ])
        XCTAssertEqual(addedOperations.value, ["will produced producerFinished=false", "did produced producerFinished=false"])
        // It went to the producer's queue, whose delegate saw it added before the producer finished.
        let events = delegate.events
        let addedAt = events.firstIndex(of: "willAdd produced")
        let producerFinishingAt = events.firstIndex { $0.hasPrefix("willFinish producer") }
        XCTAssertNotNil(addedAt, "\(events)")
        XCTAssertNotNil(producerFinishingAt, "\(events)")
        if let addedAt, let producerFinishingAt { XCTAssertLessThan(addedAt, producerFinishingAt, "\(events)") }
        XCTAssertTrue(events.contains { $0.hasPrefix("willFinish produced") }, "\(events)")
    }

    func testProducedOperationIsPassedToTheObservers() {
        let produced = BlockOperation {}
        let seen = LockedBox<[Bool]>([])
        let producer = CoreTracedProcedure("producer", trace: CoreTrace()) { procedure in
            try? procedure.produce(produced)
            procedure.finish()
        }
        producer.addWillAddOperationBlockObserver { _, operation in seen.mutate { $0.append(operation === produced) } }
        producer.addDidAddOperationBlockObserver { _, operation in seen.mutate { $0.append(operation === produced) } }
        let ran = expectation(description: "produced plain operation ran")
        produced.addExecutionBlock { ran.fulfill() }
        wait(for: producer)
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(seen.value, [true, true])
    }

    func testProduceFromWillExecuteObserver() {
        let produced = TestProcedure(name: "produced")
        let producer = TestProcedure(name: "producer")
        let threw = LockedBox<Bool?>(nil)
        producer.addWillExecuteBlockObserver { producer in
            do {
                try producer.produce(produced)
                threw.mutate { $0 = false }
            } catch {
                threw.mutate { $0 = true }
            }
        }
        wait(for: producer)
        XCTAssertEqual(threw.value, false)
        wait(for: produced)
        assertProcedureFinished(produced)
        XCTAssertTrue(produced.didExecute)
    }

    func testProducedProcedureDependingOnItsProducerRunsAfterIt() {
        let order = LockedBox<[String]>([])
        let produced = BlockProcedure { order.mutate { $0.append("produced") } }
        produced.name = "produced"
        let producer = CoreTracedProcedure("producer", trace: CoreTrace(), observed: false) { procedure in
            produced.addDependency(procedure)
            try? procedure.produce(produced)
            order.mutate { $0.append("producer") }
            procedure.finish()
        }
        wait(for: producer)
        wait(for: produced)
        XCTAssertEqual(order.value, ["producer", "produced"])
        assertProcedureFinished(produced)
    }

    // MARK: - Misuse

    func testProduceBeforeEnqueueThrowsAndIsReported() {
        let procedure = TestProcedure(name: "idle")
        XCTAssertThrowsError(try procedure.produce(BlockOperation {})) { error in
            guard case .produceRequiresRunningProcedure? = error as? ProcedureError else {
                return XCTFail("unexpected error \(error)")
            }
        }
        XCTAssertEqual(misuse.kinds(about: procedure), [.produceWithoutQueue])
    }

    func testProduceWhileWaitingInAQueueThrows() {
        let gate = makeGate()
        let procedure = TestProcedure(name: "waiting")
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        XCTAssertThrowsError(try procedure.produce(BlockOperation {}))
        XCTAssertEqual(misuse.kinds(about: procedure), [.produceWithoutQueue])
        gate.finish()
        wait(for: procedure)
    }

    func testProduceAfterFinishThrowsAndTheOperationDoesNotRun() {
        let procedure = TestProcedure(name: "done")
        let addObserverCalls = LockedBox(0)
        procedure.addWillAddOperationBlockObserver { _, _ in addObserverCalls.mutate { $0 += 1 } }
        procedure.addDidAddOperationBlockObserver { _, _ in addObserverCalls.mutate { $0 += 1 } }
        wait(for: procedure)
        XCTAssertThrowsError(try procedure.produce(TestProcedure(name: "never")))
        XCTAssertEqual(misuse.kinds(about: procedure), [.produceWithoutQueue])
        XCTAssertEqual(addObserverCalls.value, 0)
    }

    func testProduceFromWillFinishThrows() {
        let threw = LockedBox<Bool?>(nil)
        let procedure = TestProcedure(name: "finishing")
        procedure.addWillFinishBlockObserver { procedure, _ in
            do {
                try procedure.produce(BlockOperation {})
                threw.mutate { $0 = false }
            } catch {
                threw.mutate { $0 = true }
            }
        }
        wait(for: procedure)
        XCTAssertEqual(threw.value, true)
        XCTAssertEqual(misuse.kinds(about: procedure), [.produceWithoutQueue])
    }

    func testProduceFromAProcedureStartedByHandThrows() {
        let threw = LockedBox<Bool?>(nil)
        let procedure = CoreTracedProcedure("free", trace: CoreTrace()) { procedure in
            do {
                try procedure.produce(BlockOperation {})
                threw.mutate { $0 = false }
            } catch {
                threw.mutate { $0 = true }
            }
            procedure.finish()
        }
        procedure.start()
        wait(for: procedure)
        XCTAssertEqual(threw.value, true, "a procedure started by hand has no queue to produce into")
        XCTAssertEqual(misuse.kinds(about: procedure), [.produceWithoutQueue])
    }
}
