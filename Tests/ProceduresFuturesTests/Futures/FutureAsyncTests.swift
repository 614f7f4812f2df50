import XCTest
@testable import ProceduresFutures

/// async/await bridging: awaiting forwards Task cancellation as a cancel request.
final class FutureAsyncTests: XCTestCase {
    func testAwaitingReturnsTheValueOrThrows() async throws {
        let value = try await Future(value: 3).value
        XCTAssertEqual(value, 3)
        do {
            _ = try await Future<Int>(error: FutureTestError(code: 4)).value
            XCTFail("should throw")
        } catch {
            XCTAssertEqual(error as? FutureTestError, FutureTestError(code: 4))
        }
        do {
            _ = try await Future<Int>(result: .cancelled).value
            XCTFail("should throw")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
    }

    func testAwaitingAPendingFuture() async throws {
        let promise = Promise<Int>()
        DispatchQueue.global().async { promise.succeed(8) }
        let value = try await promise.future.value
        XCTAssertEqual(value, 8)
    }

    func testTaskCancellationIsForwardedAsACancelRequest() async {
        let promise = Promise<Int>()
        let asked = expectation(description: "request reached the promise")
        promise.onRequestCancel { _ in
            asked.fulfill()
            return .complete(.cancelled)
        }
        let future = promise.future
        let waiter = Task { try await future.value }
        waiter.cancel()
        await fulfillment(of: [asked], timeout: 5)
        let result = await waiter.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError) }
    }

    func testCancelledAwaitStillReturnsWhatTheProducerDecided() async throws {
        let promise = Promise<Int>()
        let asked = expectation(description: "request reached the promise")
        promise.onRequestCancel { _ in
            asked.fulfill()
            return .continue
        }
        let future = promise.future
        let waiter = Task { try await future.value }
        waiter.cancel()
        await fulfillment(of: [asked], timeout: 5)
        promise.succeed(5)
        let value = try await waiter.value
        XCTAssertEqual(value, 5, "a request is not a guarantee")
    }

    func testFutureOfAnAsyncClosureSucceeds() async throws {
        let future = Future { () async throws -> Int in
            await Task.yield()
            return 11
        }
        let value = try await future.value
        XCTAssertEqual(value, 11)
    }

    func testCancellingAFutureOfAnAsyncClosureCancelsItsTask() async {
        let started = expectation(description: "operation started")
        let future = Future { () async throws -> Int in
            started.fulfill()
            // Stands for long cancellable work: Task.sleep throws CancellationError as soon as
            // the Task is cancelled (nothing here waits for time to pass).
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return 1
        }
        await fulfillment(of: [started], timeout: 5)
        future.cancel()
        let result = await Task { try await future.value }.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError) }
        XCTAssertEqual(future.result?.summary, "cancelled")
    }

    func testAsyncFreeFunctionAndFailure() async {
        let failing = ProceduresFutures.future { () async throws -> Int in throw FutureTestError(code: 6) }
        let result = await Task { try await failing.value }.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? FutureTestError, FutureTestError(code: 6)) }
    }
}
