/// The write side of a ``Future``: completes it once, and answers cancel requests.
///
/// ```swift
/// func fetch(_ url: URL) -> Future<Data> {
///     let promise = Promise<Data>()
///     let task = session.dataTask(with: url) { data, _, error in
///         if let data { promise.succeed(data) } else { promise.fail(error ?? URLError(.unknown)) }
///     }
///     promise.onRequestCancel { _ in
///         task.cancel()          // the transfer will report its cancellation...
///         return .continue       // ...and the callback above completes the promise
///     }
///     task.resume()
///     return promise.future
/// }
/// ```
///
/// Completion is first-wins: every later attempt returns `false` and changes nothing. Completing
/// runs the future's ready callbacks on the calling thread (those with an immediate context) or
/// dispatches them; no lock is held meanwhile, so completing from inside a handler is fine.
///
/// A promise deallocated before completing (and not following another future) fails its
/// future with ``FutureError/brokenPromise``, so nothing waits forever, unless something can
/// still complete it:
/// - if a cancel request had reached it, the future completes as cancelled (the producer
///   stopped as asked);
/// - if it registered ``onRequestCancel(_:)``, the future stays pending until a cancel request
///   reaches it: the handlers run, and if they did not complete it (`.continue`), it completes
///   as cancelled. FutureKit's idiom works as written:
///
/// ```swift
/// func asynFunc() -> Future<Int> {
///     let p = Promise<Int>()
///     p.onRequestCancel { _ in .complete(.cancelled) }
///     return p.future   // pending until cancelled, though `p` is gone
/// }
/// ```
public final class Promise<Value: Sendable>: Sendable {
    /// The future this promise completes.
    public let future: Future<Value>

    /// Creates a promise with a pending future.
    @inlinable public init() {
        future = Future()
    }

    /// Completes the future with a value. `false` if it had already completed.
    @discardableResult
    @inlinable public func succeed(_ value: Value) -> Bool { future.complete(.success(value)) }

    /// Completes the future with an error. `false` if it had already completed.
    @discardableResult
    @inlinable public func fail(_ error: any Error) -> Bool { future.complete(.failure(error)) }

    /// Completes the future as cancelled. `false` if it had already completed.
    @discardableResult
    @inlinable public func cancel() -> Bool { future.complete(.cancelled) }

    /// Completes the future with `result`. `false` if it had already completed.
    @discardableResult
    @inlinable public func complete(_ result: FutureResult<Value>) -> Bool { future.complete(result) }

    /// Completes the future with `other`'s eventual result.
    ///
    /// From now on cancel requests reaching this future are forwarded to `other` (this future
    /// is one of its consumers). The promise may be released afterwards. Completing a promise
    /// with its own future fails it with ``FutureError/cyclicCompletion``.
    ///
    /// First wins, like every completion: `false` (and nothing changes, `other` does not count
    /// this future as a consumer) if the future has completed or already follows a future
    /// given to an earlier `complete(with:)`.
    @discardableResult
    @inlinable public func complete(with other: Future<Value>) -> Bool {
        guard future.startFollowing() else { return false }
        future._follow(other).run()
        return true
    }

    /// Answers cancel requests that reach this promise's future.
    ///
    /// `handler` runs once per decided request, with the options of the request, on the thread
    /// that cancels (a handler added after a request was decided runs at once), never under a
    /// lock. Return `.continue` to keep the future pending (you complete it later, typically
    /// with ``cancel()`` once the work confirms), or `.complete(result)` to complete it now.
    /// Several handlers run in registration order. Without any handler a request is ignored
    /// (unless a token forces its future). Handlers are released when the future completes.
    ///
    /// Do not capture the promise strongly in `handler` if it may never complete: return a
    /// response instead of calling `promise.cancel()`.
    @inlinable public func onRequestCancel(
        _ handler: @escaping @Sendable (CancelRequestOptions) -> CancelResponse<Value>
    ) {
        future.addRequestHandler(handler)
    }

    deinit {
        future.breakPromiseIfAbandoned()
    }
}
