import Foundation
import ProceduresTesting
import XCTest

/// `ProcedureQueue`: delegate, plain operations, width, suspension, underlying queue,
/// cancelling, waiting procedures, long chains and dependencies across queues.
final class ProcedureQueueTests: ProcedureTestCase {
    // MARK: - Delegate

    func testDelegateIsToldAddAndFinishInOrderWithErrors() {
        let delegateDone = expectation(description: "delegate told both finished")
        delegateDone.expectedFulfillmentCount = 2
        let delegate = RecordingQueueDelegate(onDidFinish: { _ in delegateDone.fulfill() })
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let gate = makeGate()
        let procedure = TestProcedure(name: "p", error: TestError("boom"))
        procedure.addDependency(gate)  // held, so that didAdd certainly comes before it starts
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        gate.finish()
        // The delegate's didFinish comes after the did-finish observers wait(for:) waits for.
        wait(for: [delegateDone], timeout: 10)

        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(delegate.events(of: "p"), [
            "willAdd p", "didAdd p", "willFinish p [boom] finished=false", "didFinish p [boom] finished=true",
        ])
        XCTAssertEqual(delegate.events(of: "gate"), [
            "willAdd gate", "didAdd gate", "willFinish gate [] finished=false", "didFinish gate [] finished=true",
        ])
    }

    func testDelegateGetsTheCancelErrorsOfACancelledProcedure() {
        let delegateDone = expectation(description: "delegate told finished")
        let delegate = RecordingQueueDelegate(onDidFinish: { _ in delegateDone.fulfill() })
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let procedure = TestProcedure(name: "c")
        procedure.cancel(withError: TestError("stop"))
        queue.addOperation(procedure)
        wait(for: [delegateDone], timeout: 10)
        // didAdd may come after the procedure started or even finished (documented).
        let events = delegate.events(of: "c")
        XCTAssertEqual(events.filter { $0 != "didAdd c" }, [
            "willAdd c", "willFinish c [stop] finished=false", "didFinish c [stop] finished=true",
        ])
        XCTAssertEqual(events.filter { $0 == "didAdd c" }.count, 1, "\(events)")
    }

    func testDelegateFinishCallsComeAfterTheMatchingObservers() {
        // willFinish comes after the will-finish observers (and before isFinished flips:
        // see the test above); didFinish comes after the did-finish observers.
        let log = LockedBox<[String]>([])
        final class Delegate: ProcedureQueueDelegate, @unchecked Sendable {
            let log: LockedBox<[String]>
            let done: XCTestExpectation
            init(_ log: LockedBox<[String]>, _ done: XCTestExpectation) {
                self.log = log
                self.done = done
            }
            func procedureQueue(_ queue: ProcedureQueue, willFinish procedure: Procedure, withErrors errors: [any Error]) {
                log.mutate { $0.append("delegate willFinish") }
            }
            func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
                log.mutate { $0.append("delegate didFinish") }
                done.fulfill()
            }
        }
        let delegate = Delegate(log, expectation(description: "delegate told finished"))
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let procedure = TestProcedure(name: "p")
        procedure.addWillFinishBlockObserver { _, _ in log.mutate { $0.append("observer willFinish") } }
        procedure.addDidFinishBlockObserver { _, _ in log.mutate { $0.append("observer didFinish") } }
        queue.addOperation(procedure)
        wait(for: [delegate.done], timeout: 10)
        XCTAssertEqual(log.value, ["observer willFinish", "delegate willFinish", "observer didFinish", "delegate didFinish"])
    }

    func testDelegateIsHeldWeakly() {
        let queue = ProcedureQueue()
        weak var weakDelegate: RecordingQueueDelegate?
        do {
            let delegate = RecordingQueueDelegate()
            weakDelegate = delegate
            queue.delegate = delegate
            XCTAssertNotNil(queue.delegate)
        }
        XCTAssertNil(weakDelegate)
        XCTAssertNil(queue.delegate)
        let procedure = TestProcedure()
        wait(for: procedure, on: queue)
        assertProcedureFinished(procedure)
    }

    // MARK: - Plain operations

    func testPlainBlockOperationsRunAndTheDelegateSeesThemAdded() {
        let delegate = RecordingQueueDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate
        let ran = expectation(description: "operations ran")
        ran.expectedFulfillmentCount = 2
        let operation = BlockOperation { ran.fulfill() }
        operation.name = "plain"
        queue.addOperation(operation)
        queue.addOperation { ran.fulfill() }
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(delegate.events(of: "plain"), ["willAdd plain", "didAdd plain"])
    }

    func testPlainOperationDependingOnAProcedure() {
        let order = LockedBox<[String]>([])
        let gate = makeGate()
        let procedure = BlockProcedure { order.mutate { $0.append("procedure") } }
        procedure.addDependency(gate)
        let ran = expectation(description: "plain operation ran")
        let operation = BlockOperation {
            order.mutate { $0.append("operation") }
            ran.fulfill()
        }
        operation.addDependency(procedure)
        let queue = ProcedureQueue()
        queue.addOperations([operation, procedure, gate], waitUntilFinished: false)
        gate.finish()
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(order.value, ["procedure", "operation"])
        XCTAssertTrue(procedure.isFinished)
    }

    func testProcedureDependingOnAPlainOperationInASuspendedQueue() {
        let order = LockedBox<[String]>([])
        let plainQueue = OperationQueue()
        plainQueue.isSuspended = true
        let operation = BlockOperation { order.mutate { $0.append("operation") } }
        let procedure = BlockProcedure { order.mutate { $0.append("procedure") } }
        procedure.addDependency(operation)
        XCTAssertTrue(procedure.dependencies.contains { $0 === operation })
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        plainQueue.addOperation(operation)
        plainQueue.isSuspended = false
        wait(for: procedure)
        XCTAssertEqual(order.value, ["operation", "procedure"])
        XCTAssertTrue(operation.isFinished)
    }

    func testProcedureDependingOnAPlainOperationInTheSameQueue() {
        let order = LockedBox<[String]>([])
        let operation = BlockOperation { order.mutate { $0.append("operation") } }
        let procedure = BlockProcedure { order.mutate { $0.append("procedure") } }
        procedure.addDependency(operation)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperations([procedure, operation], waitUntilFinished: false)
        queue.isSuspended = false
        wait(for: procedure)
        XCTAssertEqual(order.value, ["operation", "procedure"])
    }

    // MARK: - Width, suspension, underlying queue

    private func runCounting(width: Int, count: Int) -> (maximum: Int, procedures: [TestProcedure]) {
        let counter = ConcurrencyCounter()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = width
        let procedures = (0..<count).map { index in
            let procedure = TestProcedure(name: "p\(index)", delay: 0.005)
            procedure.addWillExecuteBlockObserver { _ in counter.enter() }
            // Leaves before isFinished flips, i.e. before the slot is given to the next one.
            procedure.addWillFinishBlockObserver { _, _ in counter.leave() }
            return procedure
        }
        wait(forAll: procedures, on: queue)
        return (counter.maximum, procedures)
    }

    func testMaxConcurrentOperationCountOneSerialises() {
        let (maximum, procedures) = runCounting(width: 1, count: 20)
        XCTAssertEqual(maximum, 1)
        procedures.forEach { assertProcedureFinished($0) }
    }

    func testMaxConcurrentOperationCountTwoNeverExceedsTwo() {
        let (maximum, procedures) = runCounting(width: 2, count: 20)
        XCTAssertLessThanOrEqual(maximum, 2)
        XCTAssertGreaterThanOrEqual(maximum, 1)
        procedures.forEach { assertProcedureFinished($0) }
    }

    func testWaitingProceduresDoNotTakeASlot() {
        // With one slot, a procedure waiting for a dependency must not block a ready one
        // added after it.
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let gate = makeGate()
        ProcedureQueue().addOperation(gate)
        let waiting = TestProcedure(name: "waiting")
        waiting.addDependency(gate)
        let ready = TestProcedure(name: "ready")
        queue.addOperations([waiting, ready], waitUntilFinished: false)
        wait(for: ready)
        assertProcedureFinished(ready)
        XCTAssertFalse(waiting.didExecute)
        gate.finish()
        wait(for: waiting)
        assertProcedureFinished(waiting)
    }

    func testMaxConcurrentOperationCountIsStored() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 3
        XCTAssertEqual(queue.maxConcurrentOperationCount, 3)
    }

    func testSuspendedQueueHoldsProceduresUntilResumed() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        XCTAssertTrue(queue.isSuspended)
        let procedure = TestProcedure(name: "held")
        let executed = expectation(description: "executed while suspended")
        executed.isInverted = true
        procedure.addWillExecuteBlockObserver { _ in executed.fulfill() }
        queue.addOperation(procedure)
        wait(for: [executed], timeout: 0.2)  // asserting that nothing happens needs a window
        XCTAssertFalse(procedure.didExecute)
        XCTAssertFalse(procedure.isFinished)

        queue.isSuspended = false
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testProcedureThatBecomesReadyWhileSuspendedWaitsForResume() {
        let queue = ProcedureQueue()
        let gate = makeGate()
        ProcedureQueue().addOperation(gate)
        let procedure = TestProcedure(name: "held")
        procedure.addDependency(gate)
        let executed = expectation(description: "executed while suspended")
        executed.isInverted = true
        procedure.addWillExecuteBlockObserver { _ in executed.fulfill() }
        queue.addOperation(procedure)
        queue.isSuspended = true
        gate.finish()
        wait(for: gate)
        wait(for: [executed], timeout: 0.2)
        XCTAssertFalse(procedure.didExecute)
        queue.isSuspended = false
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    // MARK: - Cancelling and waiting procedures

    func testCancelAllOperationsAlsoCancelsProceduresWaitingForDependencies() {
        let gateQueue = ProcedureQueue()
        let gate = makeGate()
        gateQueue.addOperation(gate)
        let queue = ProcedureQueue()
        let waiting = (0..<3).map { index in
            let procedure = TestProcedure(name: "waiting \(index)")
            procedure.addDependency(gate)
            return procedure
        }
        queue.addOperations(waiting, waitUntilFinished: false)
        XCTAssertEqual(queue.waitingProcedureCount, 3)

        queue.cancelAllOperations()
        wait(forAll: waiting)
        waiting.forEach {
            assertProcedureCancelled($0)
            XCTAssertFalse($0.didExecute)
        }
        XCTAssertFalse(gate.isCancelled, "a procedure of another queue is not touched")
        XCTAssertEqual(queue.waitingProcedureCount, 0)
        gate.finish()
        wait(for: gate)
    }

    func testCancelAllOperationsCancelsReadyProceduresAndPlainOperationsOfASuspendedQueue() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedures = (0..<3).map { TestProcedure(name: "ready \($0)") }
        let operation = BlockOperation {}
        queue.addOperations(procedures + [operation], waitUntilFinished: false)
        queue.cancelAllOperations()
        XCTAssertTrue(operation.isCancelled)
        queue.isSuspended = false
        wait(forAll: procedures)
        procedures.forEach {
            assertProcedureCancelled($0)
            XCTAssertFalse($0.didExecute)
        }
    }

    func testWaitingProcedureCount() {
        let queue = ProcedureQueue()
        XCTAssertEqual(queue.waitingProcedureCount, 0)
        let gate = makeGate()
        let dependents = (0..<3).map { index in
            let procedure = TestProcedure(name: "dependent \(index)")
            procedure.addDependency(gate)
            return procedure
        }
        queue.addOperation(gate)
        queue.addOperations(dependents, waitUntilFinished: false)
        XCTAssertEqual(queue.waitingProcedureCount, 3, "the gate itself is not waiting")

        dependents[0].cancel()
        XCTAssertEqual(queue.waitingProcedureCount, 2, "a cancelled procedure stops waiting")

        gate.finish()
        wait(forAll: dependents)
        XCTAssertEqual(queue.waitingProcedureCount, 0)
    }

    func testWaitUntilAllOperationsAreFinishedIncludesWaitingProcedures() {
        let queue = ProcedureQueue()
        let delay = DelayProcedure(by: 0.05)
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(delay)
        queue.addOperations([delay, dependent], waitUntilFinished: false)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(dependent.isFinished)
    }

    func testAddOperationsWaitingUntilFinished() {
        let queue = ProcedureQueue()
        let first = TestProcedure(name: "first", delay: 0.01)
        let second = TestProcedure(name: "second")
        second.addDependency(first)
        queue.addOperations([second, first], waitUntilFinished: true)
        XCTAssertTrue(first.isFinished)
        XCTAssertTrue(second.isFinished)
    }

    // MARK: - Chains and queues

    func testChainOfTenThousandProceduresCompletesInOrder() {
        let count = 10_000
        let queue = ProcedureQueue()
        let order = LockedBox<[Int]>([])
        order.mutate { $0.reserveCapacity(count) }
        var procedures: [Procedure] = []
        procedures.reserveCapacity(count)
        for index in 0..<count {
            let procedure = BlockProcedure { order.mutate { $0.append(index) } }
            if let previous = procedures.last { procedure.addDependency(previous) }
            procedures.append(procedure)
        }
        let done = expectation(description: "last finished")
        procedures[count - 1].addDidFinishBlockObserver { _, _ in done.fulfill() }
        queue.addOperations(procedures, waitUntilFinished: false)
        wait(for: [done], timeout: 120)
        XCTAssertEqual(order.value.count, count)
        XCTAssertEqual(order.value, Array(0..<count))
        XCTAssertEqual(queue.waitingProcedureCount, 0)
    }

    func testChainAddedLastFirstCompletesInOrder() {
        let count = 1_000
        let order = LockedBox<[Int]>([])
        var procedures: [Procedure] = []
        for index in 0..<count {
            let procedure = BlockProcedure { order.mutate { $0.append(index) } }
            if let previous = procedures.last { procedure.addDependency(previous) }
            procedures.append(procedure)
        }
        let queue = ProcedureQueue()
        queue.addOperations(procedures.reversed(), waitUntilFinished: false)
        wait(forAll: procedures, timeout: 60)
        XCTAssertEqual(order.value, Array(0..<count))
    }

    func testDependencyAcrossTwoQueues() {
        let first = ProcedureQueue()
        let second = ProcedureQueue()
        let gate = makeGate()
        first.addOperation(gate)
        let dependent = TestProcedure(name: "on the second queue")
        dependent.addDependency(gate)
        second.addOperation(dependent)
        XCTAssertEqual(second.waitingProcedureCount, 1)
        XCTAssertFalse(dependent.didExecute)

        gate.finish()
        wait(for: dependent)
        assertProcedureFinished(dependent)
        XCTAssertEqual(second.waitingProcedureCount, 0)
    }

    /// A procedure handed over to Foundation's queue may finish before the queue forgets it
    /// was waiting; it must not be counted as waiting then.
    func testWaitingProcedureCountIsZeroOnceTheWaitingProcedureFinished() {
        let queue = ProcedureQueue()
        for index in 0..<stressIterations(2_000) {
            let gate = makeGate()
            let dependent = TestProcedure(name: "dependent \(index)")
            dependent.addDependency(gate)
            queue.addOperations([gate, dependent], waitUntilFinished: false)
            gate.finish()
            wait(for: dependent)
            XCTAssertEqual(queue.waitingProcedureCount, 0, "iteration \(index)")
        }
    }

    func testChainAlternatingBetweenTwoQueuesRunsInOrder() {
        let queues = [ProcedureQueue(), ProcedureQueue()]
        let order = LockedBox<[Int]>([])
        var procedures: [Procedure] = []
        for index in 0..<200 {
            let procedure = BlockProcedure { order.mutate { $0.append(index) } }
            if let previous = procedures.last { procedure.addDependency(previous) }
            procedures.append(procedure)
        }
        for (index, procedure) in procedures.enumerated().reversed() {
            queues[index % 2].addOperation(procedure)
        }
        wait(forAll: procedures)
        XCTAssertEqual(order.value, Array(0..<200))
    }

    func testFanOutAndFanIn() {
        let queue = ProcedureQueue()
        let order = LockedBox<[String]>([])
        let root = BlockProcedure { order.mutate { $0.append("root") } }
        let middle = (0..<100).map { _ in
            let procedure = BlockProcedure { order.mutate { $0.append("middle") } }
            procedure.addDependency(root)
            return procedure
        }
        let sink = BlockProcedure { order.mutate { $0.append("sink") } }
        sink.addDependencies(middle)
        wait(forAll: [sink] + middle + [root], on: queue)
        XCTAssertEqual(order.value.first, "root")
        XCTAssertEqual(order.value.last, "sink")
        XCTAssertEqual(order.value.count, 102)
    }
}
