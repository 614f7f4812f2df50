import Foundation
import ProceduresTesting
import XCTest

/// `BatchProcedure`: one child per element, bounded width, ordered outputs, failures and
/// cancellation.
final class BatchProcedureTests: MisuseRecordingTestCase {
    func testOutputsAreInInputOrderWhateverOrderTheChildrenFinishIn() {
        // Later elements finish first: each waits for a number of yields that falls with its index.
        let batch = BatchProcedure(input: Array(0..<20), width: 20, operation: { (x: Int) async -> Int in
            for _ in 0..<(20 - x) * 10 { await Task.yield() }
            return x * x
        })
        wait(for: batch)
        assertProcedureFinished(batch)
        XCTAssertEqual(batch.output, (0..<20).map { $0 * $0 })
    }

    func testPartialOutputHoldsEveryOutputAfterASuccess() {
        let batch = BatchProcedure(input: Array(0..<5), width: 2) { (x: Int) -> Int in x * 10 }
        XCTAssertNil(batch.partialOutput, "nothing before it finishes")
        wait(for: batch)
        assertProcedureFinished(batch)
        XCTAssertEqual(batch.partialOutput, [0, 10, 20, 30, 40])
        // "How many were done" reads the same whatever the outcome.
        XCTAssertEqual(batch.partialOutput?.compactMap { $0 }.count, 5)
    }

    func testPartialOutputOfAnEmptyBatchThatSucceededIsEmpty() {
        let batch = BatchProcedure(input: [Int](), width: 2) { $0 }
        wait(for: batch)
        XCTAssertEqual(batch.partialOutput?.count, 0)
    }

    func testOneFailingChildIsReportedOnce() async {
        let error = TestError("two")
        let batch = BatchProcedure(input: [1, 2, 3], width: 2) { (x: Int) -> Int in
            if x == 2 { throw error }
            return x
        }
        do {
            _ = try await ProcedureQueue().run(batch)
            XCTFail("the batch fails")
        } catch {
            XCTAssertEqual(error as? TestError, TestError("two"), "the child's error itself, not wrapped: \(error)")
        }
        XCTAssertEqual(batch.errors.count, 1)
    }

    func testAFailingChildIsReportedOnceByAGroupThatInjectsTheBatchsOutput() {
        // The batch's error, and not again as the summing step's "BatchProcedure<…> failed with
        // [two]", which only repeats it.
        let batch = BatchProcedure(input: [1, 2, 3], width: 2) { (x: Int) -> Int in
            if x == 2 { throw TestError("two") }
            return x
        }
        let sum = TransformProcedure { (values: [Int]) in values.reduce(0, +) }.injectResult(from: batch)
        let total = ResultGroupProcedure<Int>(operations: [batch, sum])
        total.bind(from: sum)
        wait(for: total)
        assertProcedureFinishedWithErrors(total, count: 1)
        XCTAssertEqual(total.errors.first as? TestError, TestError("two"), "\(total.errors)")
        XCTAssertEqual(batch.partialOutput?.compactMap { $0 }, [1, 3])
    }

    func testTakesAnInjectedInput() {
        let beatles = ResultProcedure { ["John", "Paul", "George", "Ringo"] }
        let greetings = BatchProcedure(width: 2) { (name: String) in "Hello \(name)" }
        greetings.injectResult(from: beatles)
        wait(for: beatles, greetings)
        XCTAssertEqual(greetings.output, ["Hello John", "Hello Paul", "Hello George", "Hello Ringo"])
    }

    func testAFailedSourceCancelsTheBatchWithoutRunningAnything() {
        let beatles = ResultProcedure<[String]> { throw TestError("no band") }
        let made = LockedBox(0)
        let greetings = BatchProcedure(width: 2, makeChild: { (name: String) -> any OutputProcedure<String> in
            made.mutate { $0 += 1 }
            return ResultProcedure { name }
        })
        greetings.injectResult(from: beatles)
        wait(for: beatles, greetings)
        assertProcedureCancelled(greetings, withErrors: true)
        XCTAssertEqual(made.value, 0)
        XCTAssertTrue(greetings.children.isEmpty)
    }

    func testNoInputCancelsWithMissingInput() {
        let batch = BatchProcedure<Int, Int>(width: 2) { $0 }
        wait(for: batch)
        assertProcedureCancelled(batch, withErrors: true)
        guard case .missingInput = batch.errors.first as? ProcedureError else {
            return XCTFail("expected missingInput, got \(batch.errors)")
        }
    }

    func testAnEmptyInputGivesAnEmptyOutput() {
        let batch = BatchProcedure(input: [Int](), width: 3) { $0 }
        wait(for: batch)
        XCTAssertEqual(batch.output, [])
    }

    func testNoMoreThanWidthChildrenRunAtOnce() {
        let running = LockedBox((now: 0, most: 0))
        let batch = BatchProcedure(input: Array(0..<40), width: 3, operation: { (x: Int) async -> Int in
            running.mutate { $0.now += 1; $0.most = max($0.most, $0.now) }
            for _ in 0..<20 { await Task.yield() }
            running.mutate { $0.now -= 1 }
            return x
        })
        wait(for: batch)
        XCTAssertEqual(batch.output, Array(0..<40))
        XCTAssertLessThanOrEqual(running.value.most, 3)
        XCTAssertGreaterThanOrEqual(running.value.most, 1)
        XCTAssertEqual(batch.children.count, 40)
    }

    func testChildrenAreMadeInInputOrderAndRunOneAtATimeAtWidthOne() {
        let made = LockedBox([Int]())
        let executed = LockedBox([Int]())
        let batch = BatchProcedure(input: Array(0..<10), width: 1, makeChild: { (x: Int) -> any OutputProcedure<Int> in
            made.mutate { $0.append(x) }
            return ResultProcedure {
                executed.mutate { $0.append(x) }
                return x
            }
        })
        wait(for: batch)
        XCTAssertEqual(made.value, Array(0..<10))
        XCTAssertEqual(executed.value, Array(0..<10), "at width 1 the children run in order")
        XCTAssertEqual(batch.output, Array(0..<10))
    }

    func testChildrenAreMadeOnlyAsTheyStart() {
        // With width 1, each child is made once the one before has done its work (from its
        // will-finish, after the observers the child already had).
        let events = LockedBox([String]())
        let batch = BatchProcedure(input: [0, 1, 2], width: 1, makeChild: { (x: Int) -> any OutputProcedure<Int> in
            events.mutate { $0.append("make \(x)") }
            let child = ResultProcedure { x }
            child.addWillFinishBlockObserver { _, _ in events.mutate { $0.append("finish \(x)") } }
            return child
        })
        wait(for: batch)
        XCTAssertEqual(events.value, ["make 0", "finish 0", "make 1", "finish 1", "make 2", "finish 2"])
    }

    func testAFailingElementsErrorsAreTheBatchsAndTheOthersStillRunByDefault() {
        let error = TestError("three")
        let ran = LockedBox(Set<Int>())
        let batch = BatchProcedure(input: Array(0..<10), width: 2) { (x: Int) -> Int in
            ran.mutate { _ = $0.insert(x) }
            if x == 3 { throw error }
            return x
        }
        wait(for: batch)
        assertProcedureFinishedWithErrors(batch, count: 1)
        XCTAssertEqual(batch.errors.first as? TestError, error)
        XCTAssertNil(batch.output)
        XCTAssertEqual(ran.value, Set(0..<10))
        let partial = batch.partialOutput
        XCTAssertEqual(partial?.count, 10)
        XCTAssertNil(partial?[3] ?? nil)
        XCTAssertEqual(partial?[9] ?? nil, 9)
    }

    func testEveryFailureIsReportedWhenTheOthersRun() {
        let batch = BatchProcedure(input: Array(0..<6), width: 3) { (x: Int) -> Int in
            if x % 2 == 1 { throw TestError("odd \(x)") }
            return x
        }
        wait(for: batch)
        assertProcedureFinishedWithErrors(batch, count: 3)
    }

    func testCancelRemainingStopsAtTheFirstFailure() {
        let error = TestError("three")
        let started = LockedBox(Set<Int>())
        let batch = BatchProcedure(input: Array(0..<100), width: 1, onFailure: .cancelRemaining) { (x: Int) -> Int in
            started.mutate { _ = $0.insert(x) }
            if x == 3 { throw error }
            return x
        }
        wait(for: batch)
        assertProcedureFinishedWithErrors(batch, count: 1)
        XCTAssertEqual(batch.errors.first as? TestError, error, "the batch's errors are the failing element's only")
        XCTAssertEqual(started.value, [0, 1, 2, 3])
        XCTAssertEqual(batch.partialOutput?.prefix(3).map { $0 }, [0, 1, 2])
    }

    func testCancelRemainingCancelsTheOtherChildren() {
        let slow = Blocker<Int>("slow")
        let failing = ResultProcedure<Int> { throw TestError("fast") }
        let thirdRan = LockedBox(false)
        let third = ResultProcedure<Int> {
            thirdRan.mutate { $0 = true }
            return 2
        }
        let children: [any OutputProcedure<Int>] = [slow, failing, third]
        let batch = BatchProcedure(input: [0, 1, 2], width: 2, onFailure: .cancelRemaining, makeChild: { index in
            children[index]
        })
        wait(for: batch)
        assertProcedureFinishedWithErrors(batch, count: 1)
        XCTAssertTrue(slow.isCancelled)
        XCTAssertFalse(thirdRan.value, "no element starts after the failure")
        XCTAssertEqual(batch.partialOutput?.count, 3)
        XCTAssertEqual(batch.children.count, 2)
    }

    func testCancellingInTheMiddleStartsNoMoreAndKeepsTheFinishedOutputs() {
        let started = LockedBox(Set<Int>())
        let startedBeforeCancel = LockedBox(0)
        let box = LockedBox<BatchProcedure<Int, Int>?>(nil)
        let batch = BatchProcedure(input: Array(0..<100), width: 2) { (x: Int) -> Int in
            started.mutate { _ = $0.insert(x) }
            if x == 10 {
                box.value?.cancel()
                startedBeforeCancel.mutate { $0 = started.value.count }
            }
            return x * 2
        }
        box.mutate { $0 = batch }
        let future = ProcedureQueue().future(batch)
        wait(for: batch)
        assertProcedureCancelled(batch)
        XCTAssertNil(batch.output)
        XCTAssertEqual(future.result?.isCancelled, true)
        // After the cancel only the one other running element can still have started.
        XCTAssertLessThanOrEqual(started.value.count, startedBeforeCancel.value + 1)
        XCTAssertLessThan(started.value.count, 100)
        XCTAssertTrue(batch.children.allSatisfy(\.isFinished))
        let partial = batch.partialOutput ?? []
        XCTAssertEqual(partial.count, 100)
        for (index, output) in partial.enumerated() {
            if let output {
                XCTAssertEqual(output, index * 2)
                XCTAssertTrue(started.value.contains(index))
            }
        }
        XCTAssertGreaterThanOrEqual(partial.compactMap { $0 }.count, started.value.count - 2)
    }

    func testCancellingCancelsTheRunningTasks() {
        let started = expectation(description: "both running")
        started.expectedFulfillmentCount = 2
        let batch = BatchProcedure(input: [1, 2, 3], width: 2, operation: { (x: Int) async throws -> Int in
            started.fulfill()
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return x
        })
        ProcedureQueue().addOperation(batch)
        wait(for: [started], timeout: 10)
        batch.cancel()
        wait(for: batch)
        assertProcedureCancelled(batch)
        XCTAssertEqual(batch.children.count, 2, "the third element never started")
        XCTAssertTrue(batch.children.allSatisfy(\.isCancelled))
    }

    func testAWidthBelowOneIsReportedAndRunsOneAtATime() {
        let running = LockedBox((now: 0, most: 0))
        let batch = BatchProcedure(input: Array(0..<5), width: 0, operation: { (x: Int) async -> Int in
            running.mutate { $0.now += 1; $0.most = max($0.most, $0.now) }
            await Task.yield()
            running.mutate { $0.now -= 1 }
            return x
        })
        XCTAssertEqual(misuse.kinds(about: batch), [.invalidWidth])
        wait(for: batch)
        XCTAssertEqual(batch.output, Array(0..<5))
        XCTAssertEqual(running.value.most, 1)
    }

    func testOutputIsAvailableAsAFuture() async throws {
        let queue = ProcedureQueue()
        let squares = try await queue.future(BatchProcedure(input: [1, 2, 3], width: 2) { $0 * $0 }).value
        XCTAssertEqual(squares, [1, 4, 9])
    }

    func testAFinishedBatchAndItsChildrenAreReleased() {
        // The children and the batch refer to each other while it runs; nothing is kept once
        // it has finished, whether it succeeded or was cancelled part way.
        final class BatchReference: @unchecked Sendable {
            // @unchecked: set before the batch runs, read by its children afterwards.
            weak var batch: BatchProcedure<Int, Int>?
        }
        let refs = WeakRefs()
        for cancelPartWay in [false, true] {
            let reference = BatchReference()
            let made = LockedBox(0)
            let batch = BatchProcedure(input: Array(0..<8), width: 2, makeChild: { (x: Int) in
                let child = TransformProcedure<Int, Int>(input: x) { $0 }
                refs.track(child, "child \(x) (cancelled part way: \(cancelPartWay))")
                if cancelPartWay, made.mutate({ $0 += 1; return $0 }) == 3 { reference.batch?.cancel() }
                return child
            })
            reference.batch = batch
            refs.track(batch, "batch (cancelled part way: \(cancelPartWay))")
            wait(for: batch)
            XCTAssertEqual(batch.isCancelled, cancelPartWay)
        }
        XCTAssertGreaterThan(refs.count, 2)
        waitUntilReleased(refs)
    }
}
