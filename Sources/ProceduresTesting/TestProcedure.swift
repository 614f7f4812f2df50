import Foundation
import Procedures

/// An error with an identity, for asserting which error went where.
public struct TestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What tells this error from another.
    public let id: String
    /// An error named `id` (a fresh UUID by default).
    public init(_ id: String = UUID().uuidString) { self.id = id }
    /// `TestError(id)`.
    public var description: String { "TestError(\(id))" }
}

/// A configurable procedure for tests: it can wait before finishing (on a timer, never a
/// sleeping thread), fail with an error, produce an operation, and report its callbacks to a
/// ``ProcedureEventRecorder``. Cancelled while waiting, it finishes at once.
///
/// ```swift
/// let slow = TestProcedure(name: "slow", delay: 0.5)
/// queue.addOperation(slow)
/// slow.cancel()            // finishes promptly, cancelled
/// ```
open class TestProcedure: Procedure, @unchecked Sendable {
    // @unchecked: the counters live in `storedCounts`, guarded by the lock `counts`; the rest
    // is immutable.
    /// How long `execute()` waits before finishing.
    public let delay: TimeInterval
    /// The error it finishes with, if any.
    public let error: (any Error)?
    /// An operation it produces from `execute()`, if any.
    public let producedOperation: Operation?
    /// Where its callbacks are recorded, if anywhere.
    public let recorder: ProcedureEventRecorder?
    /// The clock its delay is measured on (nil: real time).
    public let clock: (any ProcedureClock)?

    private struct Counts {
        var executes = 0
        var didCancels = 0
        var finishCalls = 0
    }
    private let counts = NSLock()
    private var storedCounts = Counts()

    /// A test procedure named `name` that waits `delay` seconds in `execute()` (0: finishes
    /// at once), then finishes with `error`; it produces `produced` first, and reports its
    /// callbacks to `recorder`. Pass a `clock` (a ``ManualClock``) to measure the delay on it.
    public init(
        name: String = "TestProcedure", delay: TimeInterval = 0, error: (any Error)? = nil,
        produced: Operation? = nil, recorder: ProcedureEventRecorder? = nil, clock: (any ProcedureClock)? = nil
    ) {
        self.delay = delay
        self.clock = clock
        self.error = error
        self.producedOperation = produced
        self.recorder = recorder
        super.init()
        self.name = name
        if let recorder { addObserver(recorder) }
    }

    /// How many times `execute()` ran (0 or 1 unless something is badly wrong).
    public var executeCount: Int { counts.withLock { storedCounts.executes } }
    /// True if `execute()` ran.
    public var didExecute: Bool { executeCount > 0 }
    /// How many times `procedureDidCancel(withErrors:)` ran.
    public var didCancelCount: Int { counts.withLock { storedCounts.didCancels } }

    /// Counts the call, produces the operation if any, and finishes (after `delay`).
    open override func execute() {
        record(.execute) {
            counts.withLock { storedCounts.executes += 1 }
            if let producedOperation { try? produce(producedOperation) }
            guard delay > 0 else {
                finishOnce()
                return
            }
            if let clock {
                _ = clock.schedule(after: delay) { [weak self] in self?.finishOnce() }
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.finishOnce()
            }
        }
    }

    /// Counts the call; a procedure that is running finishes at once.
    open override func procedureDidCancel(withErrors errors: [any Error]) {
        record(.other) {
            counts.withLock { storedCounts.didCancels += 1 }
        }
        // Only a running procedure finishes itself; one cancelled before it started is
        // finished by the library when its queue starts it.
        if didExecute { finishOnce() }
    }

    /// Finishes with ``error`` the first time it is called (the timer and a cancel race).
    private func finishOnce() {
        let first = counts.withLock { () -> Bool in
            storedCounts.finishCalls += 1
            return storedCounts.finishCalls == 1
        }
        if first { finish(withError: error) }
    }

    private func record(_ event: ProcedureEventRecorder.Event, _ body: () -> Void) {
        if let recorder {
            recorder.record(event, of: self, during: body)
        } else {
            body()
        }
    }
}
