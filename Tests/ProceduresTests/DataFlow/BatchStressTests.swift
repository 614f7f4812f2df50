import Foundation
import ProceduresTesting
import XCTest

/// A batch cancelled at random moments: every child it made finishes exactly once, and a
/// batch that was not cancelled has every output, in order.
final class BatchStressTests: XCTestCase {
    func testEveryChildFinishesOnceWhenCancelledAtRandomMoments() {
        let iterations = stressIterations(1_000)
        let count = 1_000
        let queue = ProcedureQueue()
        var completed = 0
        var cancelled = 0
        for iteration in 0..<iterations {
            let finishes = LockedBox([Int](repeating: 0, count: count))
            let made = LockedBox(0)
            let box = LockedBox<BatchProcedure<Int, Int>?>(nil)
            // Cancelled from inside an element, from another thread, or (k past the end) never.
            let cancelAt = Int.random(in: 0..<(count + count / 5))
            let fromOutside = iteration % 3 == 0
            let batch = BatchProcedure(input: Array(0..<count), width: 8, makeChild: { (x: Int) -> any OutputProcedure<Int> in
                made.mutate { $0 += 1 }
                let child = TransformProcedure(input: x) { (x: Int) -> Int in
                    if !fromOutside, x == cancelAt { box.value?.cancel() }
                    return x + 1
                }
                child.addDidFinishBlockObserver { _, _ in finishes.mutate { $0[x] += 1 } }
                return child
            })
            box.mutate { $0 = batch }
            queue.addOperation(batch)
            if fromOutside, cancelAt < count {
                let delay = Double.random(in: 0...0.002)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { batch.cancel() }
            }
            wait(for: batch)
            let counts = finishes.value
            XCTAssertTrue(batch.isFinished)
            XCTAssertEqual(counts.filter { $0 == 1 }.count, made.value, "iteration \(iteration): a child made did not finish once")
            XCTAssertFalse(counts.contains { $0 > 1 }, "iteration \(iteration): a child finished twice")
            XCTAssertEqual(batch.children.count, made.value)
            if batch.isCancelled {
                cancelled += 1
                XCTAssertNil(batch.output)
                XCTAssertEqual(batch.partialOutput?.count, count)
            } else {
                completed += 1
                XCTAssertEqual(batch.output, (1...count).map { $0 })
                XCTAssertEqual(made.value, count)
            }
            box.mutate { $0 = nil }
        }
        XCTAssertEqual(completed + cancelled, iterations)
    }

    func testCancelRemainingStopsEveryOtherElementOnce() {
        let iterations = stressIterations(200)
        let count = 1_000
        let width = 8
        let queue = ProcedureQueue()
        for iteration in 0..<iterations {
            let failAt = Int.random(in: 0..<count)
            let finishes = LockedBox([Int](repeating: 0, count: count))
            let executed = LockedBox([Int]())
            let made = LockedBox(0)
            let executedAtFailure = LockedBox(Int.max - width)
            let batch = BatchProcedure(input: Array(0..<count), width: width, onFailure: .cancelRemaining, makeChild: {
                (x: Int) -> any OutputProcedure<Int> in
                made.mutate { $0 += 1 }
                let child = TransformProcedure(input: x) { (x: Int) -> Int in
                    executed.mutate { $0.append(x) }
                    if x == failAt { throw TestError("element \(x)") }
                    return x
                }
                child.addDidFinishBlockObserver { _, _ in finishes.mutate { $0[x] += 1 } }
                if x == failAt {
                    // Did-finish runs after the batch saw the failure (at will-finish).
                    child.addDidFinishBlockObserver { _, _ in executedAtFailure.mutate { $0 = executed.value.count } }
                }
                return child
            })
            queue.addOperation(batch)
            wait(for: batch)
            let counts = finishes.value
            XCTAssertEqual(counts.filter { $0 == 1 }.count, made.value, "iteration \(iteration): a child made did not finish once")
            XCTAssertFalse(counts.contains { $0 > 1 }, "iteration \(iteration): a child finished twice")
            XCTAssertEqual(batch.errors.count, 1, "iteration \(iteration): only the failing element's error")
            // Once the failure is seen, only the elements already running beside it may still
            // execute.
            XCTAssertLessThanOrEqual(executed.value.count, executedAtFailure.value + width - 1, "iteration \(iteration)")
        }
    }
}
