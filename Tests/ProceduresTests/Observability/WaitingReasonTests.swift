import Foundation
import Procedures
import ProceduresTesting
import XCTest

@testable import Procedures

/// Executes, tells the test, and finishes only when the test says so.
private final class Held: Procedure, @unchecked Sendable {
    // @unchecked: `executing` is immutable.
    let executing = XCTestExpectation(description: "executing")

    init(_ name: String) {
        super.init()
        self.name = name
    }

    override func execute() { executing.fulfill() }
}

final class WaitingReasonTests: XCTestCase {
    private func named(_ name: String) -> BlockProcedure {
        let procedure = BlockProcedure {}
        procedure.name = name
        return procedure
    }

    /// A category no other test uses (categories are process-wide).
    private func uniqueCategory(_ base: String) -> String { "\(base)-\(UUID().uuidString)" }

    func testNoReasonBeforeEnqueueWhileExecutingAndOnceFinished() {
        let held = Held("held")
        XCTAssertNil(held.waitingReason)
        let queue = ProcedureQueue()
        queue.addOperation(held)
        wait(for: [held.executing], timeout: 10)
        XCTAssertNil(held.waitingReason)
        held.finish()
        wait(for: held)
        XCTAssertNil(held.waitingReason)
    }

    func testUnfinishedDependenciesAreNamed() {
        let queue = ProcedureQueue()
        let fetch = Held("fetch-deps")
        let build = named("build")
        build.addDependency(fetch)
        queue.addOperations([fetch, build], waitUntilFinished: false)
        wait(for: [fetch.executing], timeout: 10)
        guard case .dependencies(let operations) = build.waitingReason else {
            return XCTFail("\(String(describing: build.waitingReason))")
        }
        XCTAssertTrue(operations.count == 1 && operations[0] === fetch)
        XCTAssertEqual(build.waitingReason?.description, "waiting for fetch-deps")
        fetch.finish()
        wait(for: build)
    }

    func testConditionBeingEvaluatedIsNamed() {
        let answer = LockedCompletion()
        let condition = BlockCondition { _, completion in answer.set(completion) }
        condition.name = "signed-in"
        let guarded = named("guarded")
        guarded.addCondition(condition)
        let asked = expectation(description: "condition asked")
        answer.onSet = { asked.fulfill() }
        ProcedureQueue().addOperation(guarded)
        wait(for: [asked], timeout: 10)
        guard case .condition(let name) = guarded.waitingReason else {
            return XCTFail("\(String(describing: guarded.waitingReason))")
        }
        XCTAssertEqual(name, "signed-in")
        XCTAssertEqual(guarded.waitingReason?.description, "waiting for condition signed-in to answer")
        answer.complete(.satisfied)
        wait(for: guarded)
    }

    func testDependenciesOfAConditionAreNamed() {
        let login = Held("login")
        let condition = BlockCondition { true }
        condition.addDependency(login)
        let guarded = named("guarded")
        guarded.addCondition(condition)
        let queue = ProcedureQueue()
        queue.addOperations([login, guarded], waitUntilFinished: false)
        wait(for: [login.executing], timeout: 10)
        guard case .conditionDependencies(let operations) = guarded.waitingReason else {
            return XCTFail("\(String(describing: guarded.waitingReason))")
        }
        XCTAssertTrue(operations.count == 1 && operations[0] === login)
        login.finish()
        wait(for: guarded)
    }

    func testExclusiveCategoryNamesTheProcedureHoldingIt() {
        let category = uniqueCategory("database")
        let migrate = Held("migrate-db")
        migrate.addCondition(MutuallyExclusive<Void>(category: category))
        let seed = named("seed")
        seed.addCondition(MutuallyExclusive<Void>(category: category))
        let queue = ProcedureQueue()
        queue.addOperation(migrate)
        wait(for: [migrate.executing], timeout: 10)
        XCTAssertTrue(ExclusivityManager.shared.holder(of: category) === migrate)
        queue.addOperation(seed)
        // The request joins the category's line just after the gate says it waits for it.
        let waiting = expectation(for: NSPredicate { _, _ in seed.waitingReason?.exclusivityHolder != nil }, evaluatedWith: nil)
        wait(for: [waiting], timeout: 10)
        guard case .exclusivity(let waitedFor, let holder) = seed.waitingReason else {
            return XCTFail("\(String(describing: seed.waitingReason))")
        }
        XCTAssertEqual(waitedFor, category)
        XCTAssertTrue(holder === migrate)
        XCTAssertEqual(seed.waitingReason?.description, "waiting for exclusive category \"\(category)\", held by migrate-db")
        migrate.finish()
        wait(for: seed)
        XCTAssertNil(ExclusivityManager.shared.holder(of: category))
    }

    func testReadyProcedureWaitsForASlotWhenTheWidthIsFull() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let first = Held("first")
        let second = named("second")
        queue.addOperation(first)
        wait(for: [first.executing], timeout: 10)
        queue.addOperation(second)
        guard case .queueFull(let width) = second.waitingReason else {
            return XCTFail("\(String(describing: second.waitingReason))")
        }
        XCTAssertEqual(width, 1)
        first.finish()
        wait(for: second)
    }

    func testSuspendedQueueIsNamed() {
        let queue = ProcedureQueue()
        queue.name = "uploads"
        queue.isSuspended = true
        let upload = named("upload")
        queue.addOperation(upload)
        guard case .suspended(let owner) = upload.waitingReason else {
            return XCTFail("\(String(describing: upload.waitingReason))")
        }
        XCTAssertEqual(owner, "queue uploads")
        XCTAssertEqual(upload.waitingReason?.description, "waiting for its queue uploads to be resumed")
        queue.isSuspended = false
        wait(for: upload)
    }

    func testSuspendedQueueHoldsBackConditionChecks() {
        let queue = ProcedureQueue()
        queue.name = "checks"
        queue.isSuspended = true
        let guarded = named("guarded")
        guarded.addCondition(BlockCondition { true })
        queue.addOperation(guarded)
        guard case .suspended(let owner) = guarded.waitingReason else {
            return XCTFail("\(String(describing: guarded.waitingReason))")
        }
        XCTAssertEqual(owner, "queue checks")
        queue.isSuspended = false
        wait(for: guarded)
    }

    func testChildOfASuspendedGroupNamesTheGroup() {
        let child = named("child")
        let group = GroupProcedure(operations: [child])
        group.name = "Sync"
        group.isSuspended = true
        let queue = ProcedureQueue()
        queue.addOperation(group)
        let waiting = expectation(for: NSPredicate { _, _ in group.isExecuting }, evaluatedWith: nil)
        wait(for: [waiting], timeout: 10)
        guard case .suspended(let owner) = child.waitingReason else {
            return XCTFail("\(String(describing: child.waitingReason))")
        }
        XCTAssertEqual(owner, "group Sync")
        group.isSuspended = false
        wait(for: group)
    }

    func testDelayWaitingOnAManualClockSaysUntilWhen() {
        let clock = ManualClock(now: 100)
        let delay = DelayProcedure(by: 60, clock: clock)
        ProcedureQueue().addOperation(delay)
        waitUntilScheduled(on: clock)
        guard case .clock(let waitedOn, let deadline) = delay.waitingReason else {
            return XCTFail("\(String(describing: delay.waitingReason))")
        }
        XCTAssertTrue(waitedOn as? ManualClock === clock)
        XCTAssertEqual(deadline, 160)
        XCTAssertEqual(delay.waitingReason?.description, "waiting on a ManualClock until 160.0 (now 100.0)")
        clock.advance(by: 60)
        wait(for: delay)
        XCTAssertNil(delay.waitingReason)
    }

    func testRetryInItsBackOffWaitsOnItsClock() {
        let clock = ManualClock()
        let attempts = LockedCounter()
        let retry = RetryProcedure(maxAttempts: 2, wait: .constant(5), clock: clock) { () -> BlockProcedure in
            BlockProcedure { if attempts.increment() == 1 { throw URLError(.timedOut) } }
        }
        ProcedureQueue().addOperation(retry)
        waitUntilScheduled(on: clock)
        guard case .clock(_, let deadline) = retry.waitingReason else {
            return XCTFail("\(String(describing: retry.waitingReason))")
        }
        XCTAssertEqual(deadline, 5)
        clock.advance(by: 5)
        wait(for: retry)
        XCTAssertEqual(attempts.value, 2)
    }

    func testQueueListsItsWaitingProceduresWithTheirReasons() {
        let queue = ProcedureQueue()
        let fetch = Held("fetch-deps")
        let build = named("build")
        let test = named("test")
        build.addDependency(fetch)
        test.addDependency(build)
        queue.addOperations([fetch, build, test], waitUntilFinished: false)
        wait(for: [fetch.executing], timeout: 10)
        let waiting = queue.waitingProcedures
        XCTAssertEqual(Set(waiting.map { ObjectIdentifier($0.procedure) }), [ObjectIdentifier(build), ObjectIdentifier(test)])
        XCTAssertEqual(queue.waitingReport, "build: waiting for fetch-deps\ntest: waiting for build")
        fetch.finish()
        wait(for: test)
        XCTAssertTrue(queue.waitingProcedures.isEmpty)
        XCTAssertEqual(queue.waitingReport, "")
    }

    func testAnExecutingGroupAndItsWaitingChildrenAreInTheQueuesReport() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        let fetch = Held("fetch")
        let build = named("build")
        build.addDependency(fetch)
        let group = GroupProcedure(operations: [fetch, build])
        group.name = "group"
        queue.addOperation(group)
        wait(for: [fetch.executing], timeout: 10)
        let late = named("late")
        queue.addOperation(late)
        XCTAssertEqual(
            queue.waitingReport,
            """
            build: waiting for fetch
            group: executing, waiting for its children: fetch, build
            late: ready, waiting for a slot: its queue already runs 1 at once
            """)
        fetch.finish()
        wait(for: group, late)
        XCTAssertEqual(queue.waitingReport, "")
    }

    func testARetryThatGaveItsSlotBackWaitsForOneAgainOnceItsBackOffIsOver() {
        let clock = ManualClock()
        let attempts = LockedCounter()
        let retry = RetryProcedure(maxAttempts: 2, wait: .constant(5), clock: clock) { () -> BlockProcedure in
            BlockProcedure { if attempts.increment() == 1 { throw URLError(.timedOut) } }
        }
        retry.name = "retry"
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        queue.addOperation(retry)
        waitUntilScheduled(on: clock)  // the back-off runs; the slot was given back
        let other = Held("other")
        queue.addOperation(other)
        wait(for: [other.executing], timeout: 10)
        clock.advance(by: 5)
        let again = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in
                if case .slotAgain(width: 1) = retry.waitingReason { return true }
                return false
            }, object: nil)
        wait(for: [again], timeout: 10)
        XCTAssertEqual(
            retry.waitingReason.map { "\($0)" },
            "executing, gave its slot back and waits for one again: its queue already runs 1 at once")
        other.finish()
        wait(for: retry)
        XCTAssertEqual(attempts.value, 2)
    }

    func testTimeoutMessageSaysToAdvanceAManualClock() {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 30, clock: clock)
        delay.name = "pause"
        ProcedureQueue().addOperation(delay)
        waitUntilScheduled(on: clock)
        let message = WaitTimeoutMessage.make(timeout: 1, result: "timedOut", procedures: [delay])
        XCTAssertTrue(message.contains("pause: waiting on a ManualClock until 30.0 (now 0.0): advance it"), message)
        XCTAssertFalse(message.contains("finish()"), message)
        delay.cancel()
        wait(for: delay)
    }

    func testTimeoutMessageAsksAboutFinishOnlyForAnExecutingProcedure() {
        let held = Held("forgetful")
        let blocked = named("blocked")
        blocked.addDependency(held)
        let queue = ProcedureQueue()
        queue.addOperations([held, blocked], waitUntilFinished: false)
        wait(for: [held.executing], timeout: 10)
        let message = WaitTimeoutMessage.make(timeout: 1, result: "timedOut", procedures: [held, blocked])
        XCTAssertTrue(message.contains("forgetful: executing: did every code path call finish()?"), message)
        XCTAssertTrue(message.contains("blocked: waiting for forgetful"), message)
        held.finish()
        wait(for: blocked)
    }
}

extension WaitingReason {
    fileprivate var exclusivityHolder: Procedure? {
        if case .exclusivity(_, let holder) = self { return holder }
        return nil
    }
}

/// Holds a condition's completion until the test answers.
private final class LockedCompletion: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var completion: (@Sendable (ConditionResult) -> Void)?
    var onSet: (@Sendable () -> Void)? {
        get { lock.withLock { storedOnSet } }
        set { lock.withLock { storedOnSet = newValue } }
    }
    private var storedOnSet: (@Sendable () -> Void)?

    func set(_ completion: @escaping @Sendable (ConditionResult) -> Void) {
        let onSet = lock.withLock { () -> (@Sendable () -> Void)? in
            self.completion = completion
            return storedOnSet
        }
        onSet?()
    }

    func complete(_ result: ConditionResult) {
        lock.withLock { completion }?(result)
    }
}

private final class LockedCounter: @unchecked Sendable {
    // @unchecked: `count` is guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() -> Int { lock.withLock { count += 1; return count } }
}
