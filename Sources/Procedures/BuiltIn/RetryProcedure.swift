import Foundation

/// What a ``RetryProcedure``'s retry handler learns about a failed attempt.
public struct RetryFailureInfo<T: Procedure>: Sendable {
    /// The attempt that failed (finished with errors, or was cancelled on its own).
    public let operation: T
    /// Its errors.
    public let errors: [any Error]
    /// How many attempts have been made, the failed one included (1 after the first).
    public let count: Int
    /// The first of ``errors``, if any.
    public var error: (any Error)? { errors.first }
}

/// Runs an attempt and, while the latest attempt fails, another one, after a wait.
///
/// An attempt fails when it finishes with errors or is cancelled on its own (by a
/// ``TimeoutObserver``, say). After a failure the retry handler receives a
/// ``RetryFailureInfo`` and the next attempt the iterator suggests, and returns it (possibly
/// reconfigured, or with another wait), or nil to give up. The retry stops at the first
/// attempt that succeeds, when the handler gives up, when the iterator runs out or after
/// `max` attempts; it then finishes as its **last** attempt did: with that attempt's errors
/// only, or, if that attempt was cancelled without errors, cancelled (without errors), since
/// no attempt succeeded.
///
/// ```swift
/// let fetch = RetryProcedure(
///     maxAttempts: 5, wait: .exponential(initial: 1, maximum: 30, jitter: .full)
/// ) {
///     FetchProcedure(url: url).timeout(after: 10)
/// }
/// queue.addOperation(fetch)
/// ```
///
/// The handler receives the next attempt already made (so that it can reconfigure it): the
/// `attempt` closure or the iterator is asked for it before the handler decides. When the
/// handler gives up, that attempt is made but never run, so keep making an attempt free of
/// side effects and start its work in `execute()` (ProcedureKit's `RetryProcedure` did the
/// same).
///
/// Cancelling the retry cancels the running attempt, or, between attempts, the wait (which
/// ends at once, not when it would have) and the attempt behind it; the retry then finishes
/// promptly, carrying its cancel errors. Each attempt is a child of the group, and the waits
/// are ``DelayProcedure`` children measured on the retry's ``RepeatProcedure/clock``. A retry
/// waiting between attempts gives back its slot of its queue's
/// `maxConcurrentOperationCount` (see ``RepeatProcedure``).
open class RetryProcedure<T: Procedure>: RepeatProcedure<T>, @unchecked Sendable {
    // @unchecked: `retry` is immutable; everything else is the superclasses' (see there).

    /// Decides what follows a failed attempt: return the suggested payload (possibly
    /// changed) to try again, or nil to give up.
    public typealias Handler = @Sendable (
        _ failure: RetryFailureInfo<T>, _ suggested: RepeatProcedurePayload<T>
    ) -> RepeatProcedurePayload<T>?

    private let retry: Handler

    /// Retries with the payloads of `iterator`, as `retry` decides (by default: always,
    /// until `max` attempts).
    public convenience init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        payloads iterator: some IteratorProtocol<RepeatProcedurePayload<T>>, retry: @escaping Handler = { $1 }
    ) {
        var payloads = iterator
        self.init(max: max, wait: wait, clock: clock, retry: retry, next: { payloads.next() })
    }

    /// Retries with the attempts of `iterator`, as `retry` decides.
    public convenience init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        iterator: some IteratorProtocol<T>, retry: @escaping Handler = { $1 }
    ) {
        var attempts = iterator
        self.init(
            max: max, wait: wait, clock: clock, retry: retry,
            next: { attempts.next().map { RepeatProcedurePayload(operation: $0) } })
    }

    /// Makes up to `maxAttempts` attempts with `attempt`, waiting as `wait` says between
    /// them, while they fail and `retry` agrees. `maxAttempts` of 0 or less makes none (the
    /// retry finishes at once, without errors).
    public convenience init(
        maxAttempts: Int, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        retry: @escaping Handler = { $1 }, attempt: @escaping () -> T
    ) {
        self.init(
            max: Swift.max(0, maxAttempts), wait: wait, clock: clock, retry: retry,
            next: { RepeatProcedurePayload(operation: attempt()) })
    }

    /// Retries with the payloads `next` returns (nil: no more), as `retry` decides. The
    /// designated initializer, for subclasses.
    public init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        retry: @escaping Handler = { $1 }, next: @escaping () -> RepeatProcedurePayload<T>?
    ) {
        self.retry = retry
        super.init(max: max, wait: wait, clock: clock, next: next)
    }

    override var executeIsBuiltIn: Bool { isInstance(levelsBelowGroupProcedure: 2) }

    override func nextPayload(after operation: T?, errors: [any Error]) -> RepeatProcedurePayload<T>? {
        guard let operation else { return super.nextPayload(after: nil, errors: errors) }
        guard !errors.isEmpty || operation.isCancelled else { return nil }  // it succeeded
        guard let suggested = super.nextPayload(after: operation, errors: errors) else { return nil }
        return retry(RetryFailureInfo(operation: operation, errors: errors, count: count), suggested)
    }

    /// Only the last attempt's errors are the retry's.
    override func keepsErrors(continuing: Bool) -> Bool { !continuing }

    /// A retry ends as its last attempt did: one that was cancelled without errors (and not by
    /// the retry) leaves the retry cancelled, not succeeded, since no attempt succeeded.
    override func didStop(after operation: T, errors: [any Error]) {
        if errors.isEmpty, operation.isCancelled, !isCancelled { cancel() }
    }
}
