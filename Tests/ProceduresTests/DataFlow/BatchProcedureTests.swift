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
        XCTAssertNil(batch.partialOutput)
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

    func testChildrenAreMadeOnlyAsTheyStart() {
        // With width 1, each child is made after the one before has finished.
        let events = LockedBox([String]())
        let batch = BatchProcedure(input: [0, 1, 2], width: 1, makeChild: { (x: Int) -> any OutputProcedure<Int> in
            events.mutate { $0.append("make \(x)") }
            let child = ResultProcedure { x }
            child.addDidFinishBlockObserver { _, _ in events.mutate { $0.append("finish \(x)") } }
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

    func testCancelRemainingCancelsTheRunningChildren() {
        let slow = Blocker<Int>("slow")
        let failing = ResultProcedure<Int> { throw TestError("fast") }
        let children: [any OutputProcedure<Int>] = [slow, failing]
        let batch = BatchProcedure(input: [0, 1, 2], width: 2, onFailure: .cancelRemaining, makeChild: { index in
            index < children.count ? children[index] : ResultProcedure { index }
        })
        wait(for: batch)
        assertProcedureFinishedWithErrors(batch, count: 1)
        XCTAssertTrue(slow.isCancelled)
        XCTAssertEqual(batch.children.count, 2, "no element starts after the failure")
    }

    func testCancellingInTheMiddleStartsNoMoreAndKeepsTheFinishedOutputs() {
        let started = LockedBox(Set<Int>())
        let box = LockedBox<BatchProcedure<Int, Int>?>(nil)
        let batch = BatchProcedure(input: Array(0..<100), width: 2) { (x: Int) -> Int in
            started.mutate { _ = $0.insert(x) }
            if x == 10 { box.value?.cancel() }
            return x * 2
        }
        box.mutate { $0 = batch }
        let future = ProcedureQueue().future(batch)
        wait(for: batch)
        assertProcedureCancelled(batch)
        XCTAssertNil(batch.output)
        XCTAssertEqual(future.result?.isCancelled, true)
        XCTAssertLessThanOrEqual(started.value.max() ?? 0, 11, "at most the other running element is past the cancel")
        XCTAssertTrue(batch.children.allSatisfy(\.isFinished))
        let partial = batch.partialOutput ?? []
        XCTAssertEqual(partial.count, 100)
        XCTAssertEqual(partial.prefix(8).map { $0 }, (0..<8).map { $0 * 2 })
        XCTAssertTrue(partial.suffix(from: 12).allSatisfy { $0 == nil })
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
        XCTAssertEqual(batch.children.count, 2)
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
}
