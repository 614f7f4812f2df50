import Foundation
import ProceduresTesting
import XCTest

/// `produce(_:)`: a running procedure adds an operation to its own queue, with will/did-add
/// observers, before a later `finish()` from the same callback.
final class ProduceTests: ProcedureTestCase {
    func testProducedOperationGoesToTheProceduresQueueBeforeItFinishes() {
        let delegate = RecordingQueueDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let produced = TestProcedure(name: "produced")
        let trace = CallbackTrace()
        let producer = TracedProcedure("producer", trace: trace) { procedure in
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
        let producer = TracedProcedure("producer", trace: CallbackTrace()) { procedure in
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
        let producer = TracedProcedure("producer", trace: CallbackTrace(), observed: false) { procedure in
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
        let procedure = TracedProcedure("free", trace: CallbackTrace()) { procedure in
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

extension ProduceTests {
    /// `produce(_:)` racing a `finish()` from another thread either throws
    /// (`produceRequiresRunningProcedure`, reported) or adds the operation, with its will-add and
    /// did-add observers, and it runs: an accepted operation is never dropped. (In a group, a dropped
    /// operation would let the group finish without the produced child.) Without the spin rendezvous
    /// the window is hit about once in 30,000 runs; with it, often.
    func testProduceRacingFinishEitherThrowsOrAddsTheOperation() {
        let iterations = stressIterations(1_000)
        let queue = ProcedureQueue()
        let accepted = LockedBox(0)
        let ran = LockedBox(0)
        let willAddCalls = LockedBox(0)
        let returned = expectation(description: "every produce call returned")
        returned.expectedFulfillmentCount = iterations
        var producers: [Procedure] = []
        for index in 0..<iterations {
            let produced = BlockOperation { ran.mutate { $0 += 1 } }
            let executing = expectation(description: "producer \(index) executing")
            let producer = BlockProcedure(asyncBlock: { _ in executing.fulfill() })
            producer.addWillAddOperationBlockObserver { procedure, _ in
                willAddCalls.mutate { $0 += 1 }
            }
            producers.append(producer)
            queue.addOperation(producer)
            wait(for: [executing], timeout: 10)
            // Both threads run within nanoseconds of each other; a random skew sweeps the
            // window between produce's check and its send.
            ThreadRace.run(
                skew: Int.random(in: 0..<64),
                {
                    if (try? producer.produce(produced)) != nil { accepted.mutate { $0 += 1 } }
                    returned.fulfill()
                },
                { producer.finish() })
        }
        wait(forAll: producers)
        wait(for: [returned], timeout: 10)
        // A did-finish observer added now runs behind any event still queued (a late
        // `.produce`), so once they all ran every accepted operation has been handed over.
        let drained = expectation(description: "mailboxes drained")
        drained.expectedFulfillmentCount = iterations
        for producer in producers { producer.addDidFinishBlockObserver { _, _ in drained.fulfill() } }
        wait(for: [drained], timeout: 10)
        let barrier = expectation(description: "queue drained")
        queue.addBarrierBlock { barrier.fulfill() }
        wait(for: [barrier], timeout: 10)
        XCTAssertEqual(
            ran.value, accepted.value,
            "operations accepted by produce(_:) but never run; will-add observers ran \(willAddCalls.value) times")
    }

    /// `produce(_:)` after `finish()` in the same callback: the procedure has begun finishing, so
    /// `produce` throws `produceRequiresRunningProcedure` and reports `produceWithoutQueue` (an
    /// accepted event handled after the finish would find no queue and no observers, and the
    /// operation would be dropped silently).
    func testProduceAfterFinishInTheSameCallbackThrows() {
        let delegateDone = expectation(description: "queue delegate told the producer finished")
        let delegate = RecordingQueueDelegate(onDidFinish: { procedure in
            if procedure.name == "producer" { delegateDone.fulfill() }
        })
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let produced = TestProcedure(name: "produced")
        let threw = LockedBox<Bool?>(nil)
        let producer = TracedProcedure("producer", trace: CallbackTrace(), observed: false) { procedure in
            procedure.finish()
            do {
                try procedure.produce(produced)
                threw.mutate { $0 = false }
            } catch {
                threw.mutate { $0 = true }
            }
        }
        let addObserverCalls = LockedBox(0)
        producer.addWillAddOperationBlockObserver { _, _ in addObserverCalls.mutate { $0 += 1 } }
        producer.addDidAddOperationBlockObserver { _, _ in addObserverCalls.mutate { $0 += 1 } }
        queue.addOperation(producer)
        wait(for: [delegateDone], timeout: 10)
        // A late observer's did-finish is an event queued behind the produce event.
        let drained = expectation(description: "producer's events drained")
        producer.addDidFinishBlockObserver { _, _ in drained.fulfill() }
        wait(for: [drained], timeout: 10)

        let addedToQueue = delegate.events.contains("willAdd produced")
        XCTAssertTrue(
            threw.value == true || addedToQueue,
            "produce threw: \(String(describing: threw.value)); produced added to the queue: \(addedToQueue); will/did-add observer calls: \(addObserverCalls.value)")
        if threw.value == true { XCTAssertEqual(misuse.kinds(about: producer), [.produceWithoutQueue]) }
    }
}
