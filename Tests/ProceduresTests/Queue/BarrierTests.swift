import Foundation
import ProceduresTesting
import XCTest

/// `ProcedureQueue.addBarrierBlock`: a barrier waits for everything added before it (waiting
/// procedures and operations whose add began first included), lets go of its block and of
/// what it waited for once finished or cancelled, frees nothing under the queue's lock, and
/// keeps cycle detection linear for chains added behind it.
final class BarrierTests: ProcedureTestCase {
    private final class Token: Sendable {}
    private final class WeakQueue: @unchecked Sendable {
        // @unchecked: written once before the queue is shared, then only read.
        weak var queue: ProcedureQueue?
    }

    // MARK: - What a finished barrier keeps alive

    func testAFinishedBarrierReleasesItsBlockAndThePlainOperationsItWaitedFor() {
        let queue = ProcedureQueue()
        let refs = WeakRefs()
        do {
            let earlierToken = Token()
            refs.track(earlierToken, "token captured by an operation added before the barrier")
            let barrierToken = Token()
            refs.track(barrierToken, "token captured by the barrier block")
            queue.isSuspended = true
            queue.addOperation(BlockOperation { _ = earlierToken })
            let ran = expectation(description: "barrier ran")
            queue.addBarrierBlock {
                _ = barrierToken
                ran.fulfill()
            }
            queue.isSuspended = false
            wait(for: [ran], timeout: 10)
            queue.waitUntilAllOperationsAreFinished()
        }
        waitUntilReleased(refs)
    }

    func testACancelledBarrierReleasesItsBlock() {
        let queue = ProcedureQueue()
        let refs = WeakRefs()
        do {
            let token = Token()
            refs.track(token, "token captured by a cancelled barrier's block")
            queue.isSuspended = true
            queue.addBarrierBlock { _ = token }
            queue.cancelAllOperations()
            queue.isSuspended = false
            queue.waitUntilAllOperationsAreFinished()
        }
        waitUntilReleased(refs)
    }

    func testAQueueCapturedByItsOwnBarrierBlockIsReleased() {
        let box = WeakQueue()
        do {
            let queue = ProcedureQueue()
            box.queue = queue
            let ran = expectation(description: "barrier ran")
            queue.addBarrierBlock {
                _ = queue.name
                ran.fulfill()
            }
            wait(for: [ran], timeout: 10)
            queue.waitUntilAllOperationsAreFinished()
        }
        let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in box.queue == nil }, object: nil)
        XCTAssertEqual(XCTWaiter().wait(for: [released], timeout: 10), .completed, "the queue leaked")
    }

    func testPlainOperationsAndBarriersAddedAlternatelyAreAllReleased() {
        let queue = ProcedureQueue()
        let refs = WeakRefs()
        do {
            queue.isSuspended = true  // every barrier is still pending when the next is added
            for index in 0..<200 {
                let token = Token()
                refs.track(token, "token \(index)")
                queue.addOperation(BlockOperation { _ = token })
                queue.addBarrierBlock {}
            }
            queue.isSuspended = false
            queue.waitUntilAllOperationsAreFinished()
        }
        waitUntilReleased(refs)
    }

    // MARK: - Nothing of the user's is freed under the queue's lock

    private final class TouchesTheQueueWhenFreed: @unchecked Sendable {
        // @unchecked: immutable.
        let queue: ProcedureQueue
        let freed: XCTestExpectation
        init(_ queue: ProcedureQueue, _ freed: XCTestExpectation) {
            self.queue = queue
            self.freed = freed
        }
        deinit {
            _ = queue.waitingProcedureCount  // takes the queue's lock
            freed.fulfill()
        }
    }

    func testWhatABarrierBlockCapturedIsFreedOutsideTheQueuesLock() {
        let queue = ProcedureQueue()
        let freed = expectation(description: "the captured object was freed")
        do {
            let object = TouchesTheQueueWhenFreed(queue, freed)
            let ran = expectation(description: "barrier ran")
            queue.addBarrierBlock {
                _ = object
                ran.fulfill()
            }
            wait(for: [ran], timeout: 10)
            queue.waitUntilAllOperationsAreFinished()
        }
        let added = expectation(description: "a later add returned")
        Thread.detachNewThread {
            queue.addOperation(BlockOperation {})
            queue.addBarrierBlock {}  // replaces the finished barrier, if still recorded
            added.fulfill()
        }
        wait(for: [added, freed], timeout: 10)
    }

    // MARK: - An add racing addBarrierBlock is before or after the barrier

    /// An operation that, while it is being added, has another thread add a barrier.
    private final class AddsABarrierWhileBeingAdded: Operation, @unchecked Sendable {
        // @unchecked: `hook` is set before the operation is shared; the rest is thread-safe.
        var hook: (@Sendable () -> Void)?
        let started: XCTestExpectation
        let release = DispatchSemaphore(value: 0)
        let ended = LockedBox(false)
        init(started: XCTestExpectation) { self.started = started }

        override func addDependency(_ operation: Operation) {
            // Called by `ProcedureQueue.enqueue` between reading the pending barrier and
            // handing the operation to Foundation: the window the new barrier must not miss.
            let hook = self.hook
            self.hook = nil
            hook?()
            super.addDependency(operation)
        }

        override func main() {
            started.fulfill()
            release.wait()  // the test's own operation, held until the test has looked
            ended.mutate { $0 = true }
        }
    }

    /// The operation's add began before the barrier's, so the barrier waits for it.
    func testAnOperationAddedWhileAnotherThreadAddsABarrierComesBeforeIt() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addBarrierBlock {}  // a pending barrier, so that the operation looks for one
        let operation = AddsABarrierWhileBeingAdded(started: expectation(description: "operation started"))
        let ranEarly = expectation(description: "the second barrier ran before the operation ended")
        ranEarly.isInverted = true
        let ran = expectation(description: "the second barrier ran")
        let sawTheOperationEnded = LockedBox<Bool?>(nil)
        operation.hook = {
            let barrierAdded = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                queue.addBarrierBlock {
                    let ended = operation.ended.value
                    sawTheOperationEnded.mutate { $0 = ended }
                    if !ended { ranEarly.fulfill() }
                    ran.fulfill()
                }
                barrierAdded.signal()
            }
            barrierAdded.wait()
        }
        queue.addOperation(operation)
        queue.isSuspended = false
        wait(for: [operation.started], timeout: 10)
        // Asserting that something does not happen needs a window.
        wait(for: [ranEarly], timeout: 0.5)
        operation.release.signal()
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(sawTheOperationEnded.value, true)
    }

    // MARK: - Cycle detection stays linear behind a pending barrier

    /// Behind a pending barrier (so every link depends on it), a chain added dependents-first
    /// has each link searched for cycles; the search used to walk everything the barrier waits
    /// for, once per link. Quadratically it takes minutes at this size; linearly well under
    /// a second (measured: 5.8 s for 2,000 links behind 2,000 waiting procedures, before).
    func testAChainAddedDependentsFirstBehindAPendingBarrierIsAddedWellBeforeTheTimer() {
        let count = stressIterations(10_000)
        let queue = ProcedureQueue()
        let gate = makeGate()
        queue.addOperation(gate)
        let earlier = (0..<count).map { index -> Procedure in
            let procedure = TestProcedure(name: "earlier \(index)")
            procedure.addDependency(gate)
            return procedure
        }
        queue.addOperations(earlier, waitUntilFinished: false)
        queue.addBarrierBlock {}
        let chain = (0..<count).map { TestProcedure(name: "link \($0)") }
        for index in 1..<count { chain[index].addDependency(chain[index - 1]) }
        let added = expectation(description: "the chain was added")
        Thread.detachNewThread {
            for procedure in chain.reversed() { queue.addOperation(procedure) }
            added.fulfill()
        }
        wait(for: [added], timeout: 30)
        gate.finish()
        wait(forAll: earlier + chain, timeout: 60)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all.prefix(3))")
    }
}

extension BarrierTests {
    /// `addBarrierBlock` waits for procedures added before it that still wait for their
    /// dependencies (OperationQueue's contract: the barrier runs after every operation added before
    /// it). Waiting procedures are kept out of Foundation's queue, so the barrier's gate depends on
    /// them explicitly.
    func testBarrierBlockWaitsForProceduresWaitingOnDependencies() {
        let other = ProcedureQueue()
        let gate = BlockProcedure(asyncBlock: { _ in })
        gate.name = "gate"
        let queue = ProcedureQueue()
        let earlier = TestProcedure(name: "earlier")
        earlier.addDependency(gate)
        other.addOperation(gate)
        queue.addOperation(earlier)

        let barrierRan = expectation(description: "barrier ran")
        let earlierFinishedBeforeBarrier = LockedBox<Bool?>(nil)
        queue.addBarrierBlock {
            earlierFinishedBeforeBarrier.mutate { $0 = earlier.isFinished }
            barrierRan.fulfill()
        }
        // The gate opens only after the barrier is queued: a barrier that ignored the waiting
        // procedure would run (and record false) whenever it gets there first.
        gate.finish()
        wait(for: [barrierRan], timeout: 10)
        wait(for: earlier)
        XCTAssertEqual(earlierFinishedBeforeBarrier.value, true, "the barrier ran before an earlier procedure finished")
    }
}

extension BarrierTests {
    func testBarrierWaitsForWaitingProceduresAndHoldsBackLaterOnes() {
        let gateQueue = ProcedureQueue()
        let gate = makeGate()
        gateQueue.addOperation(gate)
        let queue = ProcedureQueue()
        let log = LockedBox<[String]>([])
        let earlier = BlockProcedure { log.mutate { $0.append("earlier") } }
        earlier.addDependency(gate)
        queue.addOperation(earlier)
        XCTAssertEqual(queue.waitingProcedureCount, 1)

        let barrierRan = expectation(description: "barrier ran")
        queue.addBarrierBlock {
            log.mutate { $0.append("barrier") }
            barrierRan.fulfill()
        }
        let later = BlockProcedure { log.mutate { $0.append("later") } }
        let laterWaiting = BlockProcedure { log.mutate { $0.append("later, after a dependency") } }
        let dependency = TestProcedure(name: "dependency")
        laterWaiting.addDependency(dependency)
        queue.addOperations([later, laterWaiting, dependency], waitUntilFinished: false)

        gate.finish()
        wait(for: [barrierRan], timeout: 10)
        wait(forAll: [earlier, later, laterWaiting])
        let entries = log.value
        XCTAssertEqual(Array(entries.prefix(2)), ["earlier", "barrier"], "\(entries)")
        XCTAssertEqual(Set(entries.dropFirst(2)), ["later", "later, after a dependency"], "\(entries)")
    }

    func testBarrierRunsOnceItsWaitingProceduresAreCancelled() {
        let gate = makeGate()
        let queue = ProcedureQueue()
        let waiting = TestProcedure(name: "waiting")
        waiting.addDependency(gate)
        queue.addOperation(waiting)
        let barrierRan = expectation(description: "barrier ran")
        queue.addBarrierBlock { barrierRan.fulfill() }
        waiting.cancel()
        wait(for: [barrierRan], timeout: 10)
        assertProcedureCancelled(waiting)
        XCTAssertFalse(gate.isFinished, "the gate never ran: the barrier did not wait for it")
    }

    func testCancelAllOperationsCancelsAPendingBarrierAndLaterOperationsStillRun() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let earlier = TestProcedure(name: "earlier")
        queue.addOperation(earlier)
        let barrierRan = LockedBox(false)
        queue.addBarrierBlock { barrierRan.mutate { $0 = true } }
        queue.cancelAllOperations()
        let later = TestProcedure(name: "later")
        queue.addOperation(later)
        queue.isSuspended = false
        wait(forAll: [earlier, later])
        assertProcedureCancelled(earlier)
        assertProcedureFinished(later)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertFalse(barrierRan.value, "a cancelled barrier's block does not run")
    }

    func testBarriersRunInTheOrderTheyWereAdded() {
        let queue = ProcedureQueue()
        let log = LockedBox<[Int]>([])
        let gate = makeGate()
        let first = TestProcedure(name: "first")
        first.addDependency(gate)
        queue.addOperations([gate, first], waitUntilFinished: false)
        let done = expectation(description: "last barrier ran")
        for index in 0..<20 {
            queue.addBarrierBlock {
                log.mutate { $0.append(index) }
                if index == 19 { done.fulfill() }
            }
            queue.addOperation(BlockProcedure { log.mutate { $0.append(100 + index) } })
        }
        gate.finish()
        wait(for: [done], timeout: 10)
        queue.waitUntilAllOperationsAreFinished()
        let entries = log.value
        // Each barrier runs after the procedure added just before it, and before the next.
        XCTAssertEqual(entries.filter { $0 < 100 }, Array(0..<20), "\(entries)")
        for index in 0..<20 {
            let barrier = entries.firstIndex(of: index)!
            if index > 0 { XCTAssertLessThan(entries.firstIndex(of: 99 + index)!, barrier, "\(entries)") }
            XCTAssertLessThan(barrier, entries.firstIndex(of: 100 + index)!, "\(entries)")
        }
    }

    func testTheDelegateIsNotToldAboutBarriers() {
        let laterFinished = expectation(description: "delegate told the later procedure finished")
        let delegate = RecordingQueueDelegate(onDidFinish: { if $0.name == "later" { laterFinished.fulfill() } })
        let queue = ProcedureQueue()
        queue.delegate = delegate
        queue.addOperation(TestProcedure(name: "earlier"))
        queue.addBarrierBlock {}
        queue.addOperation(TestProcedure(name: "later"))
        wait(for: [laterFinished], timeout: 10)
        XCTAssertEqual(delegate.events(of: "later").count, 4, "\(delegate.events)")
        XCTAssertFalse(delegate.events.contains { $0.contains("barrier") }, "\(delegate.events)")
    }

    func testBarrierOnAQueueWithoutWaitingProceduresRunsAfterTheOthers() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let first = TestProcedure(name: "first")
        queue.addOperation(first)
        let sawFirstFinished = LockedBox(false)
        let barrierRan = expectation(description: "barrier ran")
        queue.addBarrierBlock {
            sawFirstFinished.mutate { $0 = first.isFinished }
            barrierRan.fulfill()
        }
        queue.isSuspended = false
        wait(for: [barrierRan], timeout: 10)
        XCTAssertTrue(sawFirstFinished.value)
    }
}
