import Foundation
import Procedures
import ProceduresTesting
import XCTest

// Audit of the procedure core: each `testBUG_…` demonstrates a bug that remains (it FAILS
// until the bug is fixed). See each doc comment for expected vs observed and the suspected
// cause.
final class CoreAuditTests: MisuseRecordingTestCase {

    /// A ProcedureQueue whose `underlyingQueue` is `DispatchQueue.main` never runs a procedure.
    ///
    /// Expected: the procedure executes and finishes (XCTest's `wait` services the main queue,
    /// and plain `BlockOperation`s on the same queue do run).
    /// Observed: `start()` reports `.startedOutsideQueue` and the procedure stays `ready`
    /// forever (hang).
    /// Cause: `Procedure.start()` (Sources/Procedures/Procedure/Procedure.swift:289-297) only
    /// accepts a start when `OperationQueue.current === state.queue`; corelibs'
    /// `OperationQueue.current` returns `OperationQueue.main` whenever it is called on the main
    /// thread, so the owning queue's own start is rejected as misuse.
    func testBUG_ProcedureQueueOnTheMainDispatchQueueNeverRunsItsProcedures() {
        let queue = ProcedureQueue()
        queue.underlyingQueue = DispatchQueue.main
        let plainRan = expectation(description: "plain BlockOperation ran on the same queue")
        queue.addOperation { plainRan.fulfill() }
        wait(for: [plainRan], timeout: 5)

        let procedure = TestProcedure(name: "on main")
        queue.addOperation(procedure)
        wait(for: procedure, timeout: 2)
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    /// `addBarrierBlock` on a ProcedureQueue does not wait for procedures that were added
    /// before it but still wait for their dependencies.
    ///
    /// Expected (OperationQueue's contract): the barrier runs after every operation added
    /// before it has finished.
    /// Observed: the barrier runs at once, before the earlier procedure even started.
    /// Cause: waiting procedures are kept out of Foundation's queue
    /// (Sources/Procedures/Queue/ProcedureQueue.swift:96-111, `enqueueReady`), and
    /// `addBarrierBlock` is inherited unchanged, so Foundation's barrier only depends on the
    /// operations it holds.
    func testBUG_BarrierBlockDoesNotWaitForProceduresWaitingOnDependencies() {
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
        // Let the gate go only after the barrier had every chance to run early.
        let released = XCTWaiter().wait(for: [barrierRan], timeout: 0.5)
        gate.finish()
        if released != .completed { wait(for: [barrierRan], timeout: 5) }
        wait(for: earlier)
        XCTAssertEqual(earlierFinishedBeforeBarrier.value, true, "the barrier ran before an earlier procedure finished")
    }

    /// Two procedures made to depend on each other, never enqueued, are never freed.
    ///
    /// Expected: dropping the last outside reference frees them (Foundation's own
    /// dependencies are one-way: `__downDependencies` is unretained).
    /// Observed: both stay alive.
    /// Cause: `addDependency` stores the dependency strongly in `state.dependencies` and the
    /// dependent strongly in the dependency's `state.dependents`
    /// (Sources/Procedures/Procedure/Procedure.swift:343-349); only finishing breaks the cycle.
    func testBUG_DependencyBetweenProceduresThatNeverRunLeaksBoth() {
        weak var weakA: Procedure?
        weak var weakB: Procedure?
        do {
            let a = TestProcedure(name: "a")
            let b = TestProcedure(name: "b")
            b.addDependency(a)
            weakA = a
            weakB = b
        }
        XCTAssertNil(weakA, "the dependency leaked")
        XCTAssertNil(weakB, "the dependent leaked")
    }
}

// MARK: - Crashes (each scenario runs in a child process, so that the crash it demonstrates
// does not take the whole test run down)

extension CoreAuditTests {
    static let childVariable = "PROCEDURES_CORE_AUDIT_CHILD"
    var isChild: Bool { ProcessInfo.processInfo.environment[Self.childVariable] == "1" }

    /// Runs the test `name` of this class in a child copy of the test binary, with
    /// `PROCEDURES_CORE_AUDIT_CHILD=1`; returns how the child ended and what it printed.
    func runInChild(_ name: String, timeout: TimeInterval = 20) -> (status: Int32, reason: Process.TerminationReason, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["ProceduresTests.CoreAuditTests/\(name)"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let ended = expectation(description: "child \(name) ended")
        process.terminationHandler = { _ in ended.fulfill() }
        do { try process.run() } catch {
            XCTFail("could not run the child: \(error)")
            return (-1, .exit, "")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        wait(for: [ended], timeout: timeout)
        return (process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self))
    }

    /// Asserts that the child run of `name` ended normally with its test passing.
    func assertChildSurvives(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let (status, reason, output) = runInChild(name)
        let tail = output.split(separator: "\n").suffix(6).joined(separator: "\n")
        XCTAssertTrue(
            reason == .exit && status == 0,
            "child \(name) ended by \(reason == .exit ? "exit" : "signal") \(status):\n\(tail)", file: file, line: line)
    }

    /// A procedure first added to a plain (suspended) `OperationQueue` and then to a
    /// `ProcedureQueue` crashes the process.
    ///
    /// Expected (issue 2, misuse list: "adding a procedure to two queues"): reported as
    /// `.addedToSecondQueue`, ignored, never a crash.
    /// Observed: `Fatal error: operations finished, executing or already in a queue cannot be
    /// enqueued` (SIGILL/SIGTRAP).
    /// Cause: a plain `OperationQueue` never claims the procedure (phase stays `initial`), so
    /// `ProcedureQueue.enqueue` → `claim` succeeds (Procedure+Dependencies.swift:29-35) and
    /// `enqueueReady` calls `super.addOperation` (ProcedureQueue.swift:108) on an operation
    /// Foundation already holds.
    func testBUG_ProcedureInAPlainQueueThenAddedToAProcedureQueueCrashes() {
        guard isChild else {
            assertChildSurvives("testBUG_ProcedureInAPlainQueueThenAddedToAProcedureQueueCrashes")
            return
        }
        let plain = OperationQueue()
        plain.isSuspended = true
        let procedure = TestProcedure(name: "two queues")
        plain.addOperation(procedure)
        ProcedureQueue().addOperation(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.addedToSecondQueue])
        plain.isSuspended = false
        wait(for: procedure)
    }

    /// A procedure waiting in a `ProcedureQueue` for a dependency, then also added to a plain
    /// `OperationQueue`, crashes the process when the dependency finishes.
    ///
    /// Expected: the second add is reported (or, since Foundation's add cannot be
    /// intercepted, the plain queue's `start()` is reported as `.startedOutsideQueue`) and the
    /// procedure runs once; never a crash.
    /// Observed: the plain queue's start is reported, then the dependency finishes and
    /// `enqueueReady` → `super.addOperation` hits Foundation's fatal error "operations
    /// finished, executing or already in a queue cannot be enqueued".
    /// Cause: ProcedureQueue.swift:105-111 hands a ready procedure to Foundation without
    /// knowing whether another `OperationQueue` already took it.
    func testBUG_WaitingProcedureAlsoAddedToAPlainQueueCrashesWhenItBecomesReady() {
        guard isChild else {
            assertChildSurvives("testBUG_WaitingProcedureAlsoAddedToAPlainQueueCrashesWhenItBecomesReady")
            return
        }
        let gate = BlockProcedure(asyncBlock: { _ in })
        let procedure = TestProcedure(name: "waiting, then plain queue")
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        let plain = OperationQueue()
        plain.addOperation(procedure)
        gate.finish()
        wait(for: procedure, timeout: 3)
    }

    /// A long chain of procedures started by hand (no queue) overflows the stack when its
    /// head finishes.
    ///
    /// Expected: `start()` by hand "runs it as Foundation would, waiting first for its
    /// procedure dependencies (without blocking)"; a chain of any length runs.
    /// Observed: the child process dies of SIGSEGV (stack overflow) with 20,000 links.
    /// Cause: a dependency's `handleFinish` calls `waiter.dependencyDidFinish()`
    /// (Procedure+Events.swift:135) → `perform(.start)` → `startAfterWaiting` → `send(.start)`
    /// → … → `execute()` → `finish()` → `handleFinish` of the next link, all on one stack:
    /// the `.start` ready action recurses instead of being dispatched.
    func testBUG_LongChainStartedByHandOverflowsTheStack() {
        guard isChild else {
            assertChildSurvives("testBUG_LongChainStartedByHandOverflowsTheStack")
            return
        }
        let count = 20_000
        var chain: [Procedure] = []
        chain.reserveCapacity(count)
        for index in 0..<count {
            let procedure = BlockProcedure {}
            if index > 0 { procedure.addDependency(chain[index - 1]) }
            chain.append(procedure)
        }
        let done = expectation(description: "last finished")
        chain[count - 1].addDidFinishBlockObserver { _, _ in done.fulfill() }
        for procedure in chain.reversed() { procedure.start() }
        wait(for: [done], timeout: 10)
    }

    /// Deeply nested groups overflow a worker thread's stack when the innermost child finishes.
    ///
    /// Expected: nesting depth is bounded only by memory (issue brief: "deep group nesting").
    /// Observed: the child process dies of SIGSEGV on a libdispatch worker (gdb: the stack is
    /// `handleFinish` → `ProcedureQueue.procedureDidFinish` → `childDidFinish` → `send` →
    /// `drainEvents` → `handleFinish` … once per level). 1,000 and 3,000 levels pass.
    /// Cause: a child's `handleFinish` → `ProcedureQueue.procedureDidFinish` →
    /// `GroupProcedure.childDidFinish` → `send(.childFinished)` handles the event on the same
    /// thread → `finishIfDone` → `finishAutomatically` → `handleFinish` of the group → … one
    /// level of recursion per nesting level (Procedure+Events.swift:145,
    /// GroupProcedure.swift:205-227).
    func testBUG_DeeplyNestedGroupsOverflowTheStackWhenTheyFinish() {
        guard isChild else {
            assertChildSurvives("testBUG_DeeplyNestedGroupsOverflowTheStackWhenTheyFinish")
            return
        }
        let depth = 5_000  // 3,000 still passes in a debug build
        var inner: Procedure = BlockProcedure {}
        for _ in 0..<depth { inner = GroupProcedure(operations: [inner]) }
        wait(for: inner, timeout: 20)
    }
}
