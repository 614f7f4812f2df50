import Foundation
import ProceduresTesting
import XCTest

/// `transform`: one procedure that runs an output procedure, then a closure on its output.
final class OutputTransformTests: MisuseRecordingTestCase {
    private struct Hash: Equatable, Sendable {
        let hex: String
    }

    func testOutputsTheTransformedValue() {
        let hash = ResultProcedure { "d41d8cd9  empty.txt\n" }
            .transform { (line: String) in Hash(hex: String(line.prefix { $0 != " " })) }
        wait(for: hash)
        assertProcedureFinished(hash)
        XCTAssertEqual(hash.output, Hash(hex: "d41d8cd9"))
    }

    func testTheSourceRunsBeforeTheTransformAndIsAChild() {
        let order = LockedBox<[String]>([])
        let source = ResultProcedure<Int> {
            order.mutate { $0.append("source") }
            return 1
        }
        let transformed = source.transform { (x: Int) -> Int in
            order.mutate { $0.append("transform") }
            return x + 1
        }
        XCTAssertTrue(transformed.children.contains { $0 === source })
        wait(for: transformed)
        XCTAssertEqual(order.value, ["source", "transform"])
        XCTAssertEqual(transformed.output, 2)
    }

    func testAnAsyncTransform() {
        let transformed = ResultProcedure { 20 }.transform(operation: { (x: Int) async -> Int in
            await Task.yield()
            return x + 1
        })
        wait(for: transformed)
        XCTAssertEqual(transformed.output, 21)
    }

    func testTheSourcesFailureIsTheResultsOnlyError() {
        let transformed = ResultProcedure<Int> { throw TestError("source") }.transform { $0 * 2 }
        wait(for: transformed)
        assertProcedureFinishedWithErrors(transformed, count: 1)
        XCTAssertEqual(transformed.errors.first as? TestError, TestError("source"))
        XCTAssertNil(transformed.output)
    }

    func testAnErrorTheTransformThrowsFailsTheResult() {
        let transformed = ResultProcedure { 1 }.transform { (_: Int) -> Int in throw TestError("transform") }
        wait(for: transformed)
        assertProcedureFinishedWithErrors(transformed, count: 1)
        XCTAssertEqual(transformed.errors.first as? TestError, TestError("transform"))
    }

    func testCancellingTheResultCancelsTheRunningSource() {
        let source = Blocker<Int>("source")
        let transformed = source.transform { $0 + 1 }
        let queue = ProcedureQueue()
        queue.addOperation(transformed)
        wait(for: [source.executed], timeout: 10)
        transformed.cancel()
        wait(for: transformed)
        assertProcedureCancelled(transformed)
        XCTAssertTrue(source.isCancelled)
    }

    func testASourceAlreadyOnAQueueStaysThereAndIsWaitedFor() {
        let source = Blocker<Int>("source")
        let queue = ProcedureQueue()
        queue.addOperation(source)
        let transformed = source.transform { $0 * 3 }
        XCTAssertFalse(transformed.children.contains { $0 === source })
        queue.addOperation(transformed)
        source.release(5)
        wait(for: source, transformed)
        XCTAssertEqual(transformed.output, 15)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    func testAddingTheSourceToAQueueTooIsReported() {
        let source = ResultProcedure { 1 }
        let transformed = source.transform { $0 }
        let queue = ProcedureQueue()
        queue.addOperation(source)
        queue.addOperation(transformed)
        wait(for: transformed)
        XCTAssertEqual(transformed.output, 1)
        XCTAssertFalse(misuse.kinds(about: source).isEmpty, "the source belongs to the result")
    }

    func testAsABatchChildEachElementIsTransformed() {
        let batch = BatchProcedure(input: [1, 2, 3], width: 2, makeChild: { (x: Int) -> any OutputProcedure<String> in
            ResultProcedure { x * x }.transform { "\($0)" }
        })
        wait(for: batch)
        XCTAssertEqual(batch.output, ["1", "4", "9"])
    }

    func testSequenceMapStillMapsElements() {
        // `transform` takes the output whole; `map` on a sequence output maps its elements.
        let numbers = ResultProcedure { [1, 2, 3] }
        let count = numbers.transform { $0.count }
        wait(for: count)
        XCTAssertEqual(count.output, 3)
        let doubled = ResultProcedure { [1, 2, 3] }
        let mapped = doubled.map { $0 * 2 }
        wait(for: doubled, mapped)
        XCTAssertEqual(mapped.output, [2, 4, 6])
    }
}
