import Foundation
import Procedures
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// A `ProcedureQueue` schedules procedures and plain operations itself, with the face of an
/// `OperationQueue`: width, suspension, underlying queue, quality of service, priorities.
final class SchedulerTests: XCTestCase {
    /// Executes and waits for the test to finish it.
    private final class HeldProcedure: Procedure, @unchecked Sendable {
        override func execute() {}
    }

    /// Width 1 runs one thing at a time, whatever mixes procedures and plain operations.
    func testWidthOneNeverOverlapsProceduresAndPlainOperations() {
        let iterations = stressIterations(2_000)
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let inside = ConcurrencyCounter()
        let done = exactCountExpectation("every operation ran", count: iterations)
        for index in 0..<iterations {
            let work: @Sendable () -> Void = {
                inside.enter()
                inside.leave()
                done.fulfill()
            }
            if index.isMultiple(of: 2) {
                queue.addOperation(BlockProcedure(block: work))
            } else {
                queue.addOperation(BlockOperation(block: work))
            }
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(inside.maximum, 1)
    }

    /// A procedure added just as the queue ran out of work (when its drain loop lingers for
    /// more, or has just left) always starts: one thread adds each procedure the moment the
    /// one before finished, thousands of times, so additions land on every side of that moment.
    func testAProcedureAddedAsTheQueueRunsOutOfWorkAlwaysStarts() {
        addEachAsThePreviousRuns(stressIterations(5_000), to: ProcedureQueue())
    }

    /// An asynchronous procedure holds its slot until it finishes, so a width-1 queue does not
    /// start a plain operation meanwhile.
    func testAnAsynchronousProcedureHoldsItsSlotUntilItFinishes() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let held = HeldProcedure()
        let plainRan = LockedBox(false)
        let plain = BlockOperation { plainRan.mutate { $0 = true } }
        let executing = expectation(description: "held procedure executing")
        held.addWillExecuteBlockObserver { _ in executing.fulfill() }
        queue.addOperation(held)
        queue.addOperation(plain)
        wait(for: [executing], timeout: 10)
        XCTAssertFalse(plainRan.value)
        XCTAssertEqual(queue.unfinishedOperationCount, 2)
        held.finish()
        plain.waitUntilFinished()
        XCTAssertTrue(plainRan.value)
    }

    /// A suspended queue starts nothing, procedures or plain operations, until resumed.
    func testSuspensionHoldsAMixedQueue() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let ran = LockedBox(0)
        let procedure = BlockProcedure { ran.mutate { $0 += 1 } }
        let plain = BlockOperation { ran.mutate { $0 += 1 } }
        queue.addOperation(procedure)
        queue.addOperation(plain)
        let nothing = expectation(description: "nothing runs while suspended")
        nothing.isInverted = true
        procedure.addWillExecuteBlockObserver { _ in nothing.fulfill() }
        wait(for: [nothing], timeout: 0.3)  // asserting that something does not happen needs a window
        XCTAssertEqual(ran.value, 0)
        XCTAssertEqual(queue.unfinishedOperationCount, 2)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(ran.value, 2)
        XCTAssertEqual(queue.unfinishedOperationCount, 0)
    }

    /// Procedures and plain operations run on the underlying queue when one is set.
    func testProceduresAndPlainOperationsRunOnTheUnderlyingQueue() {
        let underlying = DispatchQueue(label: "scheduler.tests.underlying")
        let key = DispatchSpecificKey<String>()
        underlying.setSpecific(key: key, value: "underlying")
        let queue = ProcedureQueue()
        queue.underlyingQueue = underlying
        let seen = LockedBox<[String?]>([])
        queue.addOperation(BlockProcedure { seen.mutate { $0.append(DispatchQueue.getSpecific(key: key)) } })
        queue.addOperation(BlockOperation { seen.mutate { $0.append(DispatchQueue.getSpecific(key: key)) } })
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(seen.value, ["underlying", "underlying"])
    }

    /// The queue's quality of service picks the global queue work runs on: its procedures run
    /// on the same Dispatch threads as `DispatchQueue.global(qos:)` of that class.
    func testQualityOfServiceChoosesTheDispatchQoS() {
        let queue = ProcedureQueue()
        queue.qualityOfService = .utility
        XCTAssertEqual(queue.qualityOfService, .utility)
        let observed = LockedBox<String?>(nil)
        let procedure = BlockProcedure { observed.mutate { $0 = Self.threadName() } }
        wait(for: procedure, on: queue)
        let expected = LockedBox<String?>(nil)
        let ran = expectation(description: "utility work ran")
        DispatchQueue.global(qos: .utility).async {
            expected.mutate { $0 = Self.threadName() }
            ran.fulfill()
        }
        wait(for: [ran], timeout: 10)
        XCTAssertEqual(observed.value?.hasSuffix("utility-qos"), true, "\(observed.value ?? "nil")")
        XCTAssertEqual(observed.value, expected.value)
    }

    /// libdispatch names its worker threads after their root queue (truncated by Linux).
    private static func threadName() -> String? { Thread.current.name }

    /// Among ready work waiting for a slot, a higher `queuePriority` goes first; equal
    /// priorities keep the order they were added in.
    func testQueuePriorityOrdersReadyProceduresAndFIFOOtherwise() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let order = LockedBox<[String]>([])
        func add(_ name: String, _ priority: Operation.QueuePriority) {
            let procedure = BlockProcedure { order.mutate { $0.append(name) } }
            procedure.queuePriority = priority
            queue.addOperation(procedure)
        }
        add("low", .low)
        add("normal 1", .normal)
        add("very high", .veryHigh)
        add("normal 2", .normal)
        add("high", .high)
        add("very low", .veryLow)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(order.value, ["very high", "high", "normal 1", "normal 2", "low", "very low"])
    }

    /// `ProcedureQueue.current` answers the queue inside `execute()` and nil-or-Foundation's
    /// answer outside; Foundation's `OperationQueue.current` does not know procedures.
    func testCurrentIsTheQueueInsideExecute() {
        let queue = ProcedureQueue()
        let seen = LockedBox<OperationQueue?>(nil)
        let procedure = BlockProcedure { seen.mutate { $0 = ProcedureQueue.current } }
        wait(for: procedure, on: queue)
        XCTAssertTrue(seen.value === queue)
        let elsewhere = LockedBox<Bool>(false)
        let finished = expectation(description: "thread ran")
        Thread {
            elsewhere.mutate { $0 = ProcedureQueue.current == nil }
            finished.fulfill()
        }.start()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(elsewhere.value, "no queue on a thread of its own")
    }

    /// Inside a group's child, `ProcedureQueue.current` is a queue that adds to the group.
    func testCurrentInsideAGroupsChildAddsToTheGroup() {
        let added = BlockProcedure {}
        let child = BlockProcedure { ProcedureQueue.current?.addOperation(added) }
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        XCTAssertEqual(group.children.count, 2)
        XCTAssertTrue(added.isFinished)
    }

    /// A group runs its children on its own scheduler: no Foundation queue is made for it,
    /// with procedures or plain operations as children, unless a child asks for
    /// `ProcedureQueue.current`.
    func testAGroupCreatesNoFoundationQueue() {
        let group = GroupProcedure(operations: [BlockProcedure {}, BlockOperation {}])
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertFalse(group.hasQueueFacade)
    }

    /// Cancelling 100,000 queued procedures finishes every one of them, cancelled, without
    /// running any.
    func testCancellingAHundredThousandQueuedProcedures() {
        let count = stressIterations(100_000)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let executed = LockedBox(0)
        let procedures = (0..<count).map { _ in BlockProcedure { executed.mutate { $0 += 1 } } }
        queue.addOperations(procedures, waitUntilFinished: false)
        XCTAssertEqual(queue.unfinishedOperationCount, count)
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(executed.value, 0)
        XCTAssertTrue(procedures.allSatisfy { $0.isFinished && $0.isCancelled })
        XCTAssertEqual(queue.unfinishedOperationCount, 0)
    }

    /// A plain operation waits for its dependencies, procedures and plain operations alike,
    /// and procedures wait for plain dependencies, all in the queue's own scheduling.
    func testPlainAndProcedureDependenciesAreHonouredBothWays() {
        let queue = ProcedureQueue()
        let order = LockedBox<[String]>([])
        let first = BlockOperation { order.mutate { $0.append("first plain") } }
        let second = BlockProcedure { order.mutate { $0.append("procedure") } }
        let third = BlockOperation { order.mutate { $0.append("last plain") } }
        second.addDependency(first)
        third.addDependency(second)
        queue.addOperations([third, second, first], waitUntilFinished: true)
        XCTAssertEqual(order.value, ["first plain", "procedure", "last plain"])
    }

    /// `unfinishedOperations` lists what the queue holds (the plain operation itself, not a wrapper).
    func testUnfinishedOperationsListsProceduresAndPlainOperations() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = BlockProcedure {}
        let plain = BlockOperation {}
        queue.addOperations([procedure, plain], waitUntilFinished: false)
        let listed = queue.unfinishedOperations
        XCTAssertEqual(listed.count, 2)
        XCTAssertTrue(listed.contains { $0 === procedure })
        XCTAssertTrue(listed.contains { $0 === plain })
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(queue.unfinishedOperations.isEmpty)
    }

    /// `cancelAllOperations()` cancels as one act: a procedure waiting for a running one that
    /// finishes as soon as it is cancelled never starts (whatever order the queue holds them in).
    func testCancelAllNeverLetsADependentStartBecauseItsDependencyFinishedFirst() {
        for round in 0..<stressIterations(300) {
            let clock = ManualClock()
            let queue = ProcedureQueue()
            let running = TestProcedure(name: "running", delay: 60, clock: clock)  // finishes when cancelled
            let dependent = TestProcedure(name: "dependent")
            dependent.addDependency(running)
            let executing = expectation(description: "running executes")
            running.addDidExecuteBlockObserver { _ in executing.fulfill() }
            queue.addOperations(round.isMultiple(of: 2) ? [running, dependent] : [dependent, running], waitUntilFinished: false)
            wait(for: [executing], timeout: 10)
            queue.cancelAllOperations()
            wait(for: running, dependent)
            XCTAssertFalse(dependent.didExecute, "round \(round)")
            XCTAssertTrue(dependent.isCancelled, "round \(round)")
        }
    }
}
