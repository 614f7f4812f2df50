import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// What work writes before its procedure or future completes is seen by the code after the
/// `await`, with an order ThreadSanitizer can see too (it reports a race otherwise). The
/// completion often comes before the awaiting task has suspended, the case Swift's runtime
/// handles out of ThreadSanitizer's sight, so the loops make it happen many times.
final class AwaitOrderTests: XCTestCase {
    /// Writes a plain stored property (no lock of its own) from another thread, like the
    /// README's download.
    private final class Writer: Procedure, @unchecked Sendable {
        // @unchecked: `written` is written by the work `execute()` starts, before `finish()`,
        // and read only after the procedure finished.
        var written = 0
        let value: Int

        init(value: Int) {
            self.value = value
            super.init()
        }

        override func execute() {
            DispatchQueue.global().async { [self] in
                written = value
                finish()
            }
        }
    }

    /// A plain box, written before the promise is completed.
    private final class Box: @unchecked Sendable {
        // @unchecked: written before the promise completes, read after awaiting its future.
        var written = 0
    }

    /// A future that another thread succeeds with `value` right after writing it to the box.
    private static func writtenThenSucceeded(_ value: Int) -> (Box, Future<Int>) {
        let box = Box()
        let promise = Promise<Int>()
        DispatchQueue.global().async {
            box.written = value
            promise.succeed(value)
        }
        return (box, promise.future)
    }

    func testWhatAProcedureWroteBeforeFinishingIsSeenAfterAwaitingIt() async throws {
        let queue = ProcedureQueue()
        for index in 1...stressIterations(2_000) {
            let writer = Writer(value: index)
            try await queue.run(writer)
            XCTAssertEqual(writer.written, index)
        }
    }

    func testWhatWasWrittenBeforeAFutureCompletedIsSeenAfterAwaitingIt() async throws {
        for index in 1...stressIterations(2_000) {
            let (box, future) = Self.writtenThenSucceeded(index)
            let value = try await future.value
            XCTAssertEqual(box.written, value)
        }
    }

    func testWhatWasWrittenBeforeAFutureCompletedIsSeenAfterAwaitingItsOutcome() async {
        for index in 1...stressIterations(2_000) {
            let (box, future) = Self.writtenThenSucceeded(index)
            guard case .success(let value) = await future.outcome else { return XCTFail("not a success") }
            XCTAssertEqual(box.written, value)
        }
    }
}
