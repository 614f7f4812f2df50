import Foundation
import Procedures
import Testing

/// Runs `procedures` (adding those not yet on a queue to `queue`, or to a new
/// ``ProcedureQueue``) and returns once every one has finished and the did-finish observers it
/// had when this was called have run: the Swift Testing form of `XCTestCase`'s
/// `wait(for:on:timeout:file:line:)`, for `@Test` functions. It suspends the test's task, and
/// blocks no thread.
///
/// On timeout it records an issue at the caller with one line per unfinished procedure saying
/// where it is and why it is not running (see `Procedure.waitingReason`), and throws, which
/// stops the test (as a failed `#require` does: the issue is recorded once). If the test's
/// task is cancelled meanwhile it throws `CancellationError`.
///
/// ```swift
/// @Test func greetingFinishes() async throws {
///     let greeting = Greeting(who: "waiter")
///     try await wait(for: greeting, timeout: 5)
///     #expect(greeting.finishedWithoutErrors)
/// }
/// ```
public func wait(
    for procedures: Procedure..., on queue: ProcedureQueue? = nil, timeout: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await wait(forAll: procedures, on: queue, timeout: timeout, sourceLocation: sourceLocation)
}

/// The array form of ``wait(for:on:timeout:sourceLocation:)``.
public func wait(
    forAll procedures: [Procedure], on queue: ProcedureQueue? = nil, timeout: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let finished = TimedSignal()
    ProcedureWait.start(procedures, on: queue) { finished.signal() }
    switch await finished.wait(timeout: timeout) {
    case .signalled:
        return
    case .cancelled:
        throw CancellationError()
    case .timedOut:
        try SwiftTestingFailure.stop(
            WaitTimeoutMessage.make(timeout: timeout, result: "timedOut", procedures: procedures),
            sourceLocation: sourceLocation)
    }
}
