import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// Awaiting procedures from Swift concurrency: `queue.run(_:)`.
final class ProcedureConcurrencyTests: MisuseRecordingTestCase {
    func testRunReturnsTheOutput() async throws {
        let queue = ProcedureQueue()
        let value = try await queue.run(ResultProcedure { 6 * 7 })
        XCTAssertEqual(value, 42)
    }

    func testRunOfAProcedureWithAnOutputMayIgnoreIt() async throws {
        let ran = LockedBox(false)
        let store = ResultProcedure { () -> Int in
            ran.mutate { $0 = true }
            return 1
        }
        // Run for its effect, the output unused: this compiles without "result of call to
        // 'run' is unused" (the build has no warnings, so the warning would fail it).
        try await ProcedureQueue().run(store)
        XCTAssertTrue(ran.value)
        XCTAssertEqual(store.output, 1)
    }

    func testRunThrowsTheError() async {
        let queue = ProcedureQueue()
        do {
            _ = try await queue.run(ResultProcedure<Int> { throw TestError("e2") })
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, TestError("e2"))
        }
    }

    func testRunOfAPlainProcedureThrowsItsError() async {
        do {
            try await ProcedureQueue().run(BlockProcedure { throw TestError("e1") })
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, TestError("e1"))
        }
    }

    func testRunThrowsMultipleForSeveralErrors() async {
        let group = GroupProcedure(operations: [
            TestProcedure(error: TestError("e1")), TestProcedure(error: TestError("e2")),
        ])
        do {
            try await ProcedureQueue().run(group)
            XCTFail("expected an error")
        } catch ProcedureError.multiple(let errors) {
            XCTAssertEqual(Set(errors.compactMap { ($0 as? TestError)?.id }), ["e1", "e2"])
        } catch {
            XCTFail("\(error)")
        }
    }

    func testRunOfAProcedureWithoutOutputThrows() async {
        let silent = ResultProcedure<Int>()
        do {
            _ = try await ProcedureQueue().run(silent)
            XCTFail("expected an error")
        } catch ProcedureError.noOutput {
        } catch {
            XCTFail("\(error)")
        }
    }

    func testRunAddsAProcedureThatBelongsToNoQueue() async throws {
        let procedure = TestProcedure()
        XCTAssertFalse(procedure.isEnqueued)
        try await ProcedureQueue().run(procedure)
        XCTAssertEqual(procedure.executeCount, 1)
        assertProcedureFinished(procedure)
    }

    func testRunOfAProcedureAlreadyOnAQueueDoesNotAddItAgain() async throws {
        let home = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        home.addOperation(blocker)
        async let same = home.run(blocker)
        async let other = ProcedureQueue().run(blocker)
        await fulfillment(of: [blocker.executed], timeout: 10)
        blocker.release(5)
        let values = try await [same, other]
        XCTAssertEqual(values, [5, 5])
        XCTAssertEqual(blocker.executeCount, 1)
        XCTAssertEqual(misuse.kinds(about: blocker), [])
    }

    func testRunOfAFinishedProcedureReturnsAtOnce() async throws {
        let procedure = ResultProcedure { "old" }
        let value = try await ProcedureQueue().run(procedure)
        XCTAssertEqual(value, "old")
        let again = try await ProcedureQueue().run(procedure)
        XCTAssertEqual(again, "old")
    }

    // MARK: Task cancellation

    func testTaskCancelledBeforeTheAwait() async {
        let queue = ProcedureQueue()
        let procedure = TestProcedure(name: "never")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.run(procedure)
        }
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertEqual(procedure.executeCount, 0, "the procedure never executes")
        assertProcedureCancelled(procedure)
    }

    func testTaskCancelledDuringTheAwait() async {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let task = Task { try await queue.run(blocker) }
        await fulfillment(of: [blocker.executed], timeout: 10)
        task.cancel()
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        assertProcedureCancelled(blocker)
    }

    func testTaskCancelledAfterTheProcedureFinishedGetsTheValue() async throws {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let task = Task { () async throws -> Int in
            let value = try await queue.run(blocker)
            withUnsafeCurrentTask { $0?.cancel() }
            return value
        }
        await fulfillment(of: [blocker.executed], timeout: 10)
        blocker.release(3)
        let value = try await task.value
        XCTAssertEqual(value, 3)
        assertProcedureFinished(blocker)
    }

    func testAsyncLetSiblingFailureCancelsTheProcedure() async {
        // Structured concurrency cancels the other child task; that must cancel the procedure.
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        do {
            try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await queue.run(blocker) }
                group.addTask { throw TestError("e1") }
                for try await _ in group {}
            }
            XCTFail("expected the group to throw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError("e1"))
        }
        XCTAssertTrue(blocker.isCancelled)
        XCTAssertTrue(blocker.isFinished, "the task group awaited the cancelled run")
    }

    func testProcedureCancelledWithAnErrorWhileAwaitedThrowsThatError() async {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let task = Task { try await queue.run(blocker) }
        await fulfillment(of: [blocker.executed], timeout: 10)
        blocker.cancel(withError: TestError("e4"))
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? TestError, TestError("e4"), "\($0)") }
        XCTAssertTrue(blocker.isCancelled)
    }

    func testProcedureCancelledWithoutErrorsWhileAwaitedThrowsCancellationError() async {
        let queue = ProcedureQueue()
        let blocker = Blocker<Int>("blocker")
        let task = Task { try await queue.run(blocker) }
        await fulfillment(of: [blocker.executed], timeout: 10)
        blocker.cancel()
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
    }

    // MARK: Groups

    func testAwaitingAGroup() async throws {
        let first = ResultProcedure { 1 }
        let second = TransformProcedure { (x: Int) in x + 1 }
        second.injectResult(from: first)
        let group = GroupProcedure(operations: [first, second])
        try await ProcedureQueue().run(group)
        assertProcedureFinished(group)
        XCTAssertEqual(second.output, 2)
    }

    func testCancellingTheTaskCancelsTheGroupAndItsChildren() async {
        let child = Blocker<Int>("child")
        let group = GroupProcedure(operations: [child])
        let task = Task { try await ProcedureQueue().run(group) }
        await fulfillment(of: [child.executed], timeout: 10)
        task.cancel()
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        assertProcedureCancelled(group)
        assertProcedureCancelled(child)
    }

    // MARK: ResultProcedure with an async closure, awaited

    func testAwaitingAnAsyncClosureProcedureAndCancellingIt() async {
        let started = expectation(description: "started")
        let procedure = ResultProcedure { () async throws -> Int in
            started.fulfill()
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return 1
        }
        let task = Task { try await ProcedureQueue().run(procedure) }
        await fulfillment(of: [started], timeout: 10)
        task.cancel()  // cancels the procedure, which cancels its own Task
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        assertProcedureCancelled(procedure)
    }
}
