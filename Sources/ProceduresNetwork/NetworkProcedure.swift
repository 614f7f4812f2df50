import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A network procedure that ``NetworkProcedure`` can retry: ``NetworkDataProcedure``,
/// ``NetworkDownloadProcedure`` and ``NetworkUploadProcedure`` are (``NetworkTaskProcedure``s).
public protocol NetworkRequestProcedure: OutputProcedure {
    /// The status codes that count as success (nil: all); set before the procedure executes.
    var acceptableStatusCodes: Set<Int>? { get set }
}

extension NetworkRequestProcedure {
    /// Why the request failed: the first ``NetworkError`` among the procedure's errors; nil if
    /// it succeeded, or failed for another reason (no request: a `ProcedureError`).
    /// ProcedureKit's `networkError`, which was the first error of any type.
    public var networkError: NetworkError? { NetworkError.first(in: errors) }
}

extension NetworkError {
    /// The first network error among `errors`.
    static func first(in errors: [any Error]) -> NetworkError? { errors.lazy.compactMap { $0 as? NetworkError }.first }
}

/// A request that is tried again while it fails transiently: the ProcedureKit
/// `NetworkProcedure`, on ``Procedures/RetryProcedure`` and its wait strategies.
///
/// ```swift
/// let fetch = NetworkProcedure(maxAttempts: 4, wait: .exponential(initial: 1, maximum: 30, jitter: .full)) {
///     NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url))
/// }
/// queue.addOperation(fetch)
/// // later: fetch.output?.payload
/// ```
///
/// Each attempt is a fresh procedure from `attempt`, told to accept only
/// `acceptableStatusCodes` (2xx by default), so an error status fails it with
/// ``NetworkError/unacceptableStatus(_:url:body:retryAfter:)``. After a failed attempt,
/// `shouldRetry` decides from its ``Procedures/RetryFailureInfo`` — the attempt, its errors, the attempt
/// count — whether to try again; the default, ``retriesTransientFailures(_:)``, retries
/// connection failures, timeouts (the request's own, or a ``Procedures/TimeoutObserver`` on the
/// attempt) and the statuses 408, 429 and 5xx, and nothing else. The wait before the next
/// attempt is what `wait` says, or the server's `Retry-After` if that is longer (capped at
/// `maximumRetryAfter`), measured on `clock`.
///
/// It succeeds with the output of the attempt that succeeded, and otherwise fails with the
/// errors of its last attempt (its `output` is ``Procedures/RepeatProcedure``'s: the
/// successful attempt's). Cancelling it cancels the running request (or the wait).
public final class NetworkProcedure<T: NetworkRequestProcedure>: RetryProcedure<T>, @unchecked Sendable {
    // @unchecked: no state of its own; everything is RetryProcedure's (see there).

    /// Decides, for a failed attempt, whether to try again.
    public typealias RetryDecision = @Sendable (_ failure: RetryFailureInfo<T>) -> Bool

    /// Retries `attempt`s while they fail transiently.
    ///
    /// - Parameters:
    ///   - maxAttempts: attempts in all, the first included.
    ///   - wait: the back-off between attempts.
    ///   - clock: what the waits are measured on (a `ManualClock` in tests).
    ///   - acceptableStatusCodes: the statuses an attempt succeeds with.
    ///   - requestTimeout: if set, each attempt is cancelled (with
    ///     ``Procedures/ProcedureError/timedOut(after:)``) when it has run this many seconds on
    ///     `clock`, and retried like any timeout; nil (the default) leaves it to the request's
    ///     own `timeoutInterval`. ProcedureKit's `NetworkResilience.requestTimeout`.
    ///   - maximumRetryAfter: the longest `Retry-After` honoured, in seconds.
    ///   - shouldRetry: whether to try again after a failed attempt.
    ///   - attempt: makes each attempt; it must return a new procedure every time.
    public init(
        maxAttempts: Int = 3, wait: WaitStrategy = .exponential(initial: 1, maximum: 30, jitter: .full),
        clock: any ProcedureClock = SystemClock.shared, acceptableStatusCodes: Set<Int> = Set(200..<300),
        requestTimeout: TimeInterval? = nil, maximumRetryAfter: TimeInterval = 300, shouldRetry: @escaping RetryDecision = NetworkProcedure.retriesTransientFailures,
        attempt: @escaping () -> T
    ) {
        super.init(
            max: Swift.max(0, maxAttempts), wait: wait, clock: clock,
            retry: { failure, suggested in
                guard shouldRetry(failure) else { return nil }
                guard let retryAfter = Self.retryAfter(in: failure.errors) else { return suggested }
                var next = suggested
                let backOff = next.wait ?? wait.interval(forWait: failure.count)
                next.wait = Swift.max(backOff, Swift.min(retryAfter, maximumRetryAfter))
                return next
            },
            next: {
                let request = attempt()
                request.acceptableStatusCodes = acceptableStatusCodes
                if let requestTimeout { request.timeout(after: requestTimeout, clock: clock) }
                return RepeatProcedurePayload(operation: request)
            })
        name = "NetworkProcedure<\(T.self)>"
    }

    /// The default decision: retry connection failures, timeouts and the statuses 408, 429
    /// and 5xx (``NetworkError/isTransient``), and an attempt stopped by its own timeout.
    public static func retriesTransientFailures(_ failure: RetryFailureInfo<T>) -> Bool {
        failure.errors.contains { error in
            if let network = error as? NetworkError { return network.isTransient }
            if case .timedOut? = error as? ProcedureError { return true }
            return false
        }
    }

    /// Why the last attempt failed: the first ``NetworkError`` among this procedure's errors
    /// (its last attempt's), as ``NetworkRequestProcedure/networkError`` for one request.
    public var networkError: NetworkError? { NetworkError.first(in: errors) }

    private static func retryAfter(in errors: [any Error]) -> TimeInterval? {
        errors.lazy.compactMap { ($0 as? NetworkError)?.retryAfter }.first
    }
}
