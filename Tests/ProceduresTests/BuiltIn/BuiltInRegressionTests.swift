import Foundation
import ProceduresTesting
import XCTest

/// Bugs the test suites found, now fixed. Each test is named `testFixed_<the bug>` and asserts
/// the behaviour that was broken; "Observed" in a comment describes the bug as it was.
final class BuiltInRegressionTests: MisuseRecordingTestCase {
    // MARK: - Group cancellation lets dependents of cancelled children run

    /// The group cancels its children one at a time. Cancelling a running child makes it
    /// finish at once, which releases the children that depend on it; those start (and run
    /// their work) before the group's loop gets to cancel them, and end up not cancelled.
    func testFixed_GroupCancelLetsChildrenWaitingOnACancelledChildRun() {
        let executing = expectation(description: "blocker executing")
        let blocker = BuiltInWaitForCancel(name: "blocker")  // finishes when cancelled
        blocker.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let waiting = (0..<50).map { TestProcedure(name: "waiting \($0)") }
        for procedure in waiting { procedure.addDependency(blocker) }
        let group = GroupProcedure(operations: [blocker] + waiting)
        ProcedureQueue().addOperation(group)
        wait(for: [executing], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        let executed = waiting.filter { $0.executeCount > 0 }.map { $0.name ?? "?" }
        XCTAssertEqual(executed, [], "children of a cancelled group executed")
        let notCancelled = waiting.filter { !$0.isCancelled }.map { $0.name ?? "?" }
        XCTAssertEqual(notCancelled, [], "children of a cancelled group were not cancelled")
    }

    /// Same cause, plain `Operation` child: its block runs after the group was cancelled, and
    /// the later `cancel()` of a finished operation has no effect.
    func testFixed_GroupCancelLetsPlainChildWaitingOnACancelledChildRun() {
        let executing = expectation(description: "blocker executing")
        let blocker = BuiltInWaitForCancel(name: "blocker")
        blocker.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let runs = LockedBox(0)
        let plain = (0..<20).map { _ in BlockOperation { runs.mutate { $0 += 1 } } }
        for operation in plain { operation.addDependency(blocker) }
        let group = GroupProcedure(operations: [blocker] + plain)
        ProcedureQueue().addOperation(group)
        wait(for: [executing], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertEqual(runs.value, 0, "blocks of a cancelled group's children ran")
        XCTAssertTrue(plain.allSatisfy(\.isCancelled), "children of a cancelled group were not cancelled")
    }

    // MARK: - Children the group's queue refuses make the group hang

    /// A finished procedure added as a child is refused by the group's queue (reported as
    /// `addedAfterFinishing`) but still counted as unfinished: the group never finishes.
    func testFixed_FinishedProcedureAddedAsChildHangsTheGroup() {
        let finished = TestProcedure(name: "already finished")
        wait(for: finished)
        let group = GroupProcedure(operations: [finished, TestProcedure(name: "fresh")])
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "the group never finished: \(group.children.map(\.isFinished))")
        XCTAssertEqual(misuse.kinds(about: finished), [.addedAfterFinishing])
    }

    /// The same procedure added twice is counted twice but finishes once: the group hangs.
    func testFixed_ProcedureAddedTwiceAsChildHangsTheGroup() {
        let child = TestProcedure(name: "twice")
        let group = GroupProcedure(operations: [child])
        group.addChild(child)
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "the group never finished")
        XCTAssertEqual(child.executeCount, 1)
        // Depending on whether the first copy already finished when the second is enqueued.
        let kinds = misuse.kinds(about: child)
        XCTAssertTrue(kinds == [.addedTwice] || kinds == [.addedAfterFinishing], "\(kinds)")
    }

    /// A procedure that already belongs to another queue is refused by the group's queue but
    /// counted as a child: the group hangs even after that procedure finished elsewhere.
    func testFixed_ProcedureOwnedByAnotherQueueAddedAsChildHangsTheGroup() {
        let elsewhere = TestProcedure(name: "elsewhere", delay: 0.05)
        let otherQueue = ProcedureQueue()
        otherQueue.isSuspended = true
        otherQueue.addOperation(elsewhere)
        let group = GroupProcedure(operations: [elsewhere])
        ProcedureQueue().addOperation(group)
        otherQueue.isSuspended = false
        wait(for: elsewhere, timeout: 10)
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isFinished, "the group never finished")
        XCTAssertEqual(misuse.kinds(about: elsewhere), [.addedToSecondQueue])
    }

    // MARK: - A child's failure is lost when the group is cancelled afterwards

    /// A child failed (a real error, not an echo of a cancel); then the group was cancelled
    /// without errors. The group reports no errors at all: `failed` is false although one of
    /// its children failed before anything was cancelled.
    func testFixed_ChildFailureBeforePlainCancelIsLost() {
        let failing = TestProcedure(name: "failing", error: TestError("real failure"))
        let executing = expectation(description: "running child executing")
        let running = BuiltInWaitForCancel(name: "running")
        running.addDidExecuteBlockObserver { _ in executing.fulfill() }
        let group = GroupProcedure(operations: [failing, running])
        ProcedureQueue().addOperation(group)
        wait(for: [executing], timeout: 10)
        builtInWaitUntilFinished(failing)
        XCTAssertTrue(failing.failed)

        group.cancel()
        wait(for: group, timeout: 10)
        XCTAssertTrue(group.isCancelled)
        XCTAssertEqual(builtInTestErrorIDs(group.errors), ["real failure"], "\(group.errors)")
    }

    // MARK: - A suspended group never finishes once cancelled

    /// Arguable (a suspended `OperationQueue` does not start cancelled operations either), but
    /// the group is documented to finish promptly when cancelled, and here it hangs silently
    /// until someone resumes it: its cancelled children sit in the suspended internal queue.
    func testFixed_CancelledSuspendedGroupDoesNotFinish() {
        let child = TestProcedure(name: "held")
        let group = GroupProcedure(operations: [child])
        group.isSuspended = true
        let executed = expectation(description: "group executed")
        group.addDidExecuteBlockObserver { _ in executed.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [executed], timeout: 10)

        group.cancel()
        wait(for: group, timeout: 10)
        assertProcedureCancelled(group)
        assertProcedureCancelled(child)
        XCTAssertEqual(child.executeCount, 0)
        group.isSuspended = false  // let it finish, whatever the outcome
    }

    // MARK: - Children added right after cancel() returned can run uncancelled

    /// `cancel()` on a group whose callbacks are busy (here: a did-execute observer still
    /// running; in practice: the group handling a child's finish) returns before the cancel
    /// takes effect. `addChild` checks only the group's "cancel took effect" flag, so a child
    /// added right after `cancel()` returned is enqueued uncancelled, runs, and finishes before
    /// the cancel reaches it. Expected: a child added after `cancel()` returned is cancelled
    /// (the group's cancel request is recorded synchronously, with its errors).
    func testFixed_ChildAddedAfterCancelRunsUncancelledWhileTheGroupIsBusy() {
        let anchor = BuiltInWaitForCancel(name: "anchor")
        let group = GroupProcedure(operations: [anchor])
        let inObserver = expectation(description: "group's did-execute observer running")
        let release = DispatchSemaphore(value: 0)
        group.addDidExecuteBlockObserver { _ in
            inObserver.fulfill()
            release.wait()  // test code holding the group's callbacks busy, on purpose
        }
        ProcedureQueue().addOperation(group)
        wait(for: [inObserver], timeout: 10)

        group.cancel(withError: TestError("cancelled"))
        let late = TestProcedure(name: "added after cancel() returned")
        group.addChild(late)
        builtInWaitUntilFinished(late)
        release.signal()
        wait(for: group, timeout: 10)

        assertProcedureCancelled(group, withErrors: true)
        XCTAssertTrue(late.isCancelled, "a child added after cancel() returned was not cancelled")
        XCTAssertEqual(late.executeCount, 0, "a child added after cancel() returned executed")
    }

    // MARK: - Cancel racing finish (Procedure core; found by the stress tests)

    /// `cancel()` decides under the lock that it wins (nothing has begun finishing), then
    /// queues its event after releasing the lock. A `finish()` on another thread in that gap
    /// is accepted too and can be handled first. The cancel event then runs after the
    /// procedure finished: `procedureWillCancel`/`procedureDidCancel` run after did-finish,
    /// the will-/did-cancel observers (already cleared) never run, and `isCancelled` turns
    /// true after `isFinished`. Expected: either the cancel hooks all run before will-finish,
    /// or the cancel has no effect at all.
    func testFixed_CancelRacingFinishRunsCancelHooksAfterFinish() {
        let anomalies = LockedBox<[String]>([])
        let rounds = max(1, stressIterations(20))
        let batchSize = 250
        let queue = ProcedureQueue()
        for _ in 0..<rounds where anomalies.value.isEmpty {
            let executing = XCTestExpectation(description: "all executing")
            executing.expectedFulfillmentCount = batchSize
            let batch = (0..<batchSize).map { i -> ParkedRacer in
                let procedure = ParkedRacer(name: "racer \(i)", anomalies: anomalies)
                procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
                return procedure
            }
            queue.addOperations(batch, waitUntilFinished: false)
            XCTAssertEqual(XCTWaiter().wait(for: [executing], timeout: 10), .completed)
            // Two threads walk the batch in lock step: one finishes, the other cancels.
            let turnstile = BuiltInTurnstile()
            stressConcurrently([
                { for (i, procedure) in batch.enumerated() { turnstile.meet(side: 0, at: i); procedure.finish() } },
                { for (i, procedure) in batch.enumerated() { turnstile.meet(side: 1, at: i); procedure.cancel() } },
            ])
            wait(forAll: batch, timeout: 10)
            for procedure in batch where procedure.isCancelled && !procedure.willCancelObserved.value {
                anomalies.mutate { $0.append("\(procedure.stateSummary): cancelled but its will-cancel observer never ran") }
            }
        }
        XCTAssertEqual(anomalies.value.count, 0, "\(anomalies.value.prefix(3))")
    }
}

/// Two threads meet at each index before going on.
private final class BuiltInTurnstile: @unchecked Sendable {
    // @unchecked: `arrived` is only touched under `lock`.
    private let lock = NSLock()
    private var arrived = [-1, -1]

    func meet(side: Int, at index: Int) {
        lock.withLock { arrived[side] = index }
        while lock.withLock({ arrived[1 - side] < index }) { sched_yield() }
    }
}

/// Executes without finishing; records any cancel hook that runs after it has finished.
private final class ParkedRacer: Procedure, @unchecked Sendable {
    // @unchecked: immutable references to thread-safe boxes.
    let anomalies: LockedBox<[String]>
    let willCancelObserved = LockedBox(false)

    init(name: String, anomalies: LockedBox<[String]>) {
        self.anomalies = anomalies
        super.init()
        self.name = name
        addWillCancelBlockObserver { procedure, _ in procedure.willCancelObserved.mutate { $0 = true } }
    }

    override func execute() {}

    override func procedureWillCancel(withErrors errors: [any Error]) {
        if isFinished { anomalies.mutate { $0.append("\(name ?? ""): procedureWillCancel ran after it finished") } }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if isFinished { anomalies.mutate { $0.append("\(name ?? ""): procedureDidCancel ran after it finished") } }
    }
}
