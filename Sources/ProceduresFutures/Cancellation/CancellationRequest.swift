/// The client's side of a cancellation: the right to cancel.
///
/// A request owns one ``CancellationToken`` (the worker's side). Hand `request.token` to the
/// work, keep the request, and call ``cancel()`` when the result is no longer wanted.
///
/// When a request is deallocated without having been cancelled, its token completes as
/// *not cancelled*: `onComplete` handlers receive `false`, `onCancel` handlers never run, and
/// every handler is released. Keeping a request in a property and replacing it
/// (`self.request = CancellationRequest()`) therefore retires the handlers of the old one.
///
/// ```swift
/// let request = CancellationRequest()
/// startWork(cancellation: request.token)
/// request.cancel()      // the work's handlers run now, on this thread
/// ```
///
/// Thread-safe. Cancelling costs one lock plus the handlers that run.
public final class CancellationRequest: Cancelable, Sendable {
    /// The token observed by the work this request may cancel.
    public let token: CancellationToken

    /// Creates a request whose token is pending.
    public init() {
        token = CancellationToken()
    }

    /// Cancels the token. The first call runs the token's `onCancel` and `onComplete(true)`
    /// handlers synchronously on the calling thread, after the token's lock is released;
    /// later calls do nothing.
    public func cancel() {
        token.complete(cancelled: true)
    }

    /// Whether ``cancel()`` has been called.
    public var isCancellationRequested: Bool { token.isCancelled }

    deinit {
        // Nobody can ask any more: tell the token it will never be cancelled (no effect if it was).
        token.complete(cancelled: false)
    }
}
