import XCTest
@testable import ProceduresFutures

/// Long chains must not grow the stack, with the immediate context in particular.
final class StackDepthTests: XCTestCase {
    private let length = 100_000

    func testLongMapChainOnACompletedFuture() {
        var future = Future(value: 0)
        for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongMapChainOnAPendingFuture() {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
        XCTAssertNil(future.result)
        promise.succeed(0)
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongFlatMapChainOnAPendingFuture() {
        let promise = Promise<Int>()
        var future = promise.future
        for _ in 0..<length { future = future.flatMap(context: .immediate) { Future(value: $0 + 1) } }
        promise.succeed(0)
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongFlatMapChainOnACompletedFuture() {
        var future = Future(value: 0)
        for _ in 0..<length { future = future.flatMap(context: .immediate) { Future(value: $0 + 1) } }
        XCTAssertEqual(future.result?.value, length)
    }

    func testLongChainOfPendingInnerFuturesCompletedInOrder() {
        // Each flatMap returns a future that is still pending; completing them one by one.
        let promises = (0..<length).map { _ in Promise<Int>() }
        let root = Promise<Int>()
        var future = root.future
        for index in 0..<length {
            future = future.flatMap(context: .immediate) { _ in promises[index].future }
        }
        root.succeed(0)
        for (index, promise) in promises.enumerated() { promise.succeed(index) }
        XCTAssertEqual(future.result?.value, length - 1)
    }

    func testCancelRequestFromTheTailOfALongPendingChainReachesTheHead() {
        let promise = Promise<Int>()
        promise.onRequestCancel { _ in .complete(.cancelled) }
        var future = promise.future
        for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
        future.cancel()
        XCTAssertEqual(future.result?.summary, "cancelled")
    }

    func testAbandonedLongPendingChainIsReleasedWithoutRecursion() {
        weak var weakTail: Future<Int>?
        do {
            let promise = Promise<Int>()
            var future = promise.future
            for _ in 0..<length { future = future.map(context: .immediate) { $0 + 1 } }
            weakTail = future
        }
        XCTAssertNil(weakTail)
    }
}
