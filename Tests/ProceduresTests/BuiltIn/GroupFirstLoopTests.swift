import Dispatch
import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

@testable import Procedures

/// A group that starts its children inside its run on a queue's drain loop leaves its own
/// first loop to that thread, which takes it as soon as the group's run returns, instead of
/// spending a Dispatch block; but only where nothing but the library's code runs on the
/// thread until then, so that no user code can hold the thread its children wait for.
final class GroupFirstLoopTests: XCTestCase {
    /// A deadline far enough away that only a hang reaches it.
    private var patience: DispatchTime { .now() + .seconds(10) }

    func testAGroupStartedOnAQueuesLoopRunsItsChildrenOnThatThreadsNextLoop() {
        let queue = ProcedureQueue()
        let ran = Counter()
        let group = GroupProcedure(operations: [BlockProcedure { ran.increment() }])
        queue.addOperation(group)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(ran.value, 1)
        XCTAssertEqual(group.scheduler.handedLoopCount, 1)
    }

    func testARetryRunsItsAttemptsOnTheLoopItLeftToItsThread() {
        let queue = ProcedureQueue()
        let attempts = Counter()
        let retry = RetryProcedure(maxAttempts: 2) { () -> BlockProcedure in
            attempts.increment() == 1 ? BlockProcedure { throw TestError("first") } : BlockProcedure {}
        }
        queue.addOperation(retry)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(attempts.value, 2)
        XCTAssertTrue(retry.errors.isEmpty)
        XCTAssertEqual(retry.scheduler.handedLoopCount, 1)
    }

    /// A subclass's `execute()` is user code that may go on after `super.execute()`, and even
    /// wait there for a child: its children get a loop of their own.
    func testASubclassWaitingInExecuteForItsChildStillHasItRun() {
        let wait = ExecuteWait(until: patience)
        assertTheChildRunsWhileExecuteWaits(WaitsForItsChildInExecute(wait), wait)
    }

    /// The same for a subclass of a built-in group (a retry), whichever its depth.
    func testARetrySubclassWaitingInExecuteForItsAttemptStillHasItRun() {
        let wait = ExecuteWait(until: patience)
        assertTheChildRunsWhileExecuteWaits(RetryWaitingForItsAttemptInExecute(wait), wait)
    }

    private func assertTheChildRunsWhileExecuteWaits(
        _ group: GroupProcedure, _ wait: ExecuteWait, file: StaticString = #filePath, line: UInt = #line
    ) {
        let queue = ProcedureQueue()
        queue.addOperation(group)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(wait.result.value, .success, file: file, line: line)
        XCTAssertEqual(group.scheduler.handedLoopCount, 0, file: file, line: line)
    }

    /// A did-execute observer runs on the group's thread before its run returns.
    func testADidExecuteObserverWaitingForTheChildStillHasItRun() {
        let queue = ProcedureQueue()
        let ran = DispatchSemaphore(value: 0)
        let group = GroupProcedure(operations: [BlockProcedure { ran.signal() }])
        let waited = LockedBox<DispatchTimeoutResult?>(nil)
        group.addDidExecuteBlockObserver { [patience] _ in
            let result = ran.wait(timeout: patience)
            waited.mutate { $0 = result }
        }
        queue.addOperation(group)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(waited.value, .success)
        XCTAssertEqual(group.scheduler.handedLoopCount, 0)
    }

    /// The loop is left to the thread only where it would have run anyway: never on a queue's
    /// `underlyingQueue`, which is the user's own (a group's children run on Dispatch's).
    func testChildrenOfAGroupOnAQueueWithAnUnderlyingQueueNeverRunThere() {
        let key = DispatchSpecificKey<Int>()
        let underlying = DispatchQueue(label: "group.first.loop.tests")
        underlying.setSpecific(key: key, value: 1)
        let queue = ProcedureQueue()
        queue.underlyingQueue = underlying
        let onUnderlying = LockedBox<Int?>(nil)
        let group = GroupProcedure(operations: [
            BlockProcedure { onUnderlying.mutate { $0 = DispatchQueue.getSpecific(key: key) } }
        ])
        queue.addOperation(group)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertNil(onUnderlying.value)
        XCTAssertEqual(group.scheduler.handedLoopCount, 0)
    }

    /// A group inside a group runs on a loop that was itself left to its thread: it starts
    /// a loop of its own, so that nested groups never nest loops on one thread's stack.
    func testAGroupInsideAGroupStartsALoopOfItsOwn() {
        let queue = ProcedureQueue()
        let ran = Counter()
        let inner = GroupProcedure(operations: [BlockProcedure { ran.increment() }])
        let outer = GroupProcedure(operations: [inner])
        queue.addOperation(outer)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(ran.value, 1)
        XCTAssertEqual(outer.scheduler.handedLoopCount, 1)
        XCTAssertEqual(inner.scheduler.handedLoopCount, 0)
    }

    /// An observer added from another thread while the group starts, so possibly after it
    /// decided to leave its loop to its thread, never runs while that loop waits there.
    func testAnObserverAddedWhileTheGroupStartsNeverRunsWhileItsLoopWaitsOnItsThread() {
        let queue = ProcedureQueue()
        let groups = (0..<stressIterations(5_000)).map { _ in GroupProcedure(operations: [BlockProcedure {}]) }
        let violations = Counter()
        let observed = Counter()
        let adderDone = DispatchSemaphore(value: 0)
        // Each group gets observers until it has begun executing, so some arrive while it starts.
        let adder = Thread {
            for group in groups {
                repeat {
                    group.addDidExecuteBlockObserver { group in
                        observed.increment()
                        if DrainLoopThread.current.holdsHandedLoop(of: group.scheduler) { violations.increment() }
                    }
                } while !group.isExecuting && !group.isFinished
            }
            adderDone.signal()
        }
        adder.start()
        for group in groups { queue.addOperation(group) }
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(adderDone.wait(timeout: patience), .success)
        XCTAssertEqual(violations.value, 0)
        XCTAssertGreaterThan(observed.value, 0)
    }
}

/// A wait, in a group's own `execute()` after `super.execute()`, for its first child to run.
private final class ExecuteWait: Sendable {
    private let ran = DispatchSemaphore(value: 0)
    private let deadline: DispatchTime
    let result = LockedBox<DispatchTimeoutResult?>(nil)

    init(until deadline: DispatchTime) { self.deadline = deadline }

    func childRan() { ran.signal() }

    func waitForTheChild() {
        let outcome = ran.wait(timeout: deadline)
        result.mutate { $0 = outcome }
    }
}

private final class WaitsForItsChildInExecute: GroupProcedure, @unchecked Sendable {
    // @unchecked: its one field is immutable and Sendable.
    private let executeWait: ExecuteWait

    init(_ wait: ExecuteWait) {
        executeWait = wait
        super.init(operations: [BlockProcedure { wait.childRan() }])
    }

    override func execute() {
        super.execute()
        executeWait.waitForTheChild()
    }
}

private final class RetryWaitingForItsAttemptInExecute: RetryProcedure<BlockProcedure>, @unchecked Sendable {
    // @unchecked: its one field is immutable and Sendable.
    private let executeWait: ExecuteWait

    init(_ wait: ExecuteWait) {
        executeWait = wait
        super.init(max: 1, next: { RepeatProcedurePayload(operation: BlockProcedure { wait.childRan() }) })
    }

    override func execute() {
        super.execute()
        executeWait.waitForTheChild()
    }
}
