import ProceduresSupport
/// Counts the inner futures or streams of a stream `flatMap` still running, so the derived
/// stream finishes only after the upstream and every inner one have finished.
private final class InnerTracker: @unchecked Sendable {
    // @unchecked: both fields are only touched under this object's stripe of `StripedLock`.
    private var running = 0
    private var upstreamFinished = false

    func start() { StripedLock.withLock(for: self) { running += 1 } }

    /// `true` when the derived stream should finish now.
    func end() -> Bool {
        StripedLock.withLock(for: self) {
            running -= 1
            return upstreamFinished && running == 0
        }
    }

    /// `true` when the derived stream should finish now.
    func finishUpstream() -> Bool {
        StripedLock.withLock(for: self) {
            upstreamFinished = true
            return running == 0
        }
    }
}

// Stream combinators mirror the future ones, element by element. Each returns a new stream with
// the same capacity that finishes when this one does. A `cancelToken` unsubscribes: no further
// element is processed and the derived stream finishes. Closures run on `context` (default
// `DefaultExecutionContext.current`); a throwing closure turns that element into a failure.
extension FutureStream {
    private func derive<T: Sendable>(
        context: (any ExecutionContext)?,
        cancelToken: CancellationToken?,
        onFinish: (@Sendable (StreamPromise<T>) -> Void)? = nil,
        _ body: @escaping @Sendable (FutureResult<Value>, StreamPromise<T>) -> Void
    ) -> FutureStream<T> {
        let promise = StreamPromise<T>(capacity: capacity)
        if let cancelToken, cancelToken.isCancelled {
            promise.finish()
            return promise.stream
        }
        let subscription = StreamSubscription<Value>(
            context: context ?? DefaultExecutionContext.current,
            onElement: { body($0, promise) },
            onFinish: { onFinish?(promise) ?? { promise.finish() }() },
            // Unsubscribed: finish now, even with inner futures or streams still running
            // (`flatMap`, `recoverWith`); what they produce later is ignored.
            onCancel: { promise.finish() })
        subscribe(subscription, cancelToken: cancelToken)
        return promise.stream
    }

    /// Each value transformed; failures and cancellations pass through.
    public func map<T: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> T
    ) -> FutureStream<T> {
        derive(context: context, cancelToken: cancelToken) { result, promise in
            promise.complete(Self.mapped(result) { .success(try transform($0)) })
        }
    }

    /// Each value mapped to a future whose result becomes an element (in completion order).
    public func flatMap<T: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> Future<T>
    ) -> FutureStream<T> {
        flatMapInner(context: context, cancelToken: cancelToken, transform) { inner, promise, tracker in
            inner.onComplete(context: .immediate) { innerResult in
                promise.complete(innerResult)
                if tracker.end() { promise.finish() }
            }
        }
    }

    /// Each value mapped to a stream whose elements all become elements of the result.
    public func flatMap<T: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> FutureStream<T>
    ) -> FutureStream<T> {
        flatMapInner(context: context, cancelToken: cancelToken, transform) { inner, promise, tracker in
            inner.onComplete(context: .immediate) { promise.complete($0) }
            inner.onFinish(context: .immediate) { if tracker.end() { promise.finish() } }
        }
    }

    /// The shared part of both `flatMap`s: the result finishes once this stream has finished
    /// and every inner source has ended (`subscribe` calls `tracker.end()` when one does).
    private func flatMapInner<Inner: Sendable, T: Sendable>(
        context: (any ExecutionContext)?,
        cancelToken: CancellationToken?,
        _ transform: @escaping @Sendable (Value) throws -> Inner,
        subscribe: @escaping @Sendable (Inner, StreamPromise<T>, InnerTracker) -> Void
    ) -> FutureStream<T> {
        let tracker = InnerTracker()
        return derive(context: context, cancelToken: cancelToken, onFinish: { promise in
            if tracker.finishUpstream() { promise.finish() }
        }) { result, promise in
            guard case .success(let value) = result else {
                promise.complete(Self.mapped(result) { _ in .cancelled })
                return
            }
            do {
                let inner = try transform(value)
                tracker.start()
                subscribe(inner, promise, tracker)
            } catch {
                promise.fail(error)
            }
        }
    }

    /// Values `isIncluded` rejects become failures with ``FutureError/noSuchElement``.
    public func withFilter(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ isIncluded: @escaping @Sendable (Value) throws -> Bool
    ) -> FutureStream<Value> {
        derive(context: context, cancelToken: cancelToken) { result, promise in
            promise.complete(Self.mapped(result) { try isIncluded($0) ? .success($0) : .failure(FutureError.noSuchElement) })
        }
    }

    /// Runs `body` for every value; like ``onSuccess(context:cancelToken:_:)``.
    public func forEach(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) {
        onSuccess(context: context, cancelToken: cancelToken, body)
    }

    /// The same elements, each passed on after `body` has run with it (for values).
    public func andThen(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) -> FutureStream<Value> {
        derive(context: context, cancelToken: cancelToken) { result, promise in
            if case .success(let value) = result { body(value) }
            promise.complete(result)
        }
    }

    /// Failed elements replaced by `recovery`'s value (or its error).
    public func recover(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ recovery: @escaping @Sendable (any Error) throws -> Value
    ) -> FutureStream<Value> {
        derive(context: context, cancelToken: cancelToken) { result, promise in
            guard case .failure(let error) = result else {
                promise.complete(result)
                return
            }
            do { promise.succeed(try recovery(error)) } catch { promise.fail(error) }
        }
    }

    /// Failed elements replaced by the eventual result of the future `recovery` returns.
    public func recoverWith(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ recovery: @escaping @Sendable (any Error) throws -> Future<Value>
    ) -> FutureStream<Value> {
        let tracker = InnerTracker()
        return derive(context: context, cancelToken: cancelToken, onFinish: { promise in
            if tracker.finishUpstream() { promise.finish() }
        }) { result, promise in
            guard case .failure(let error) = result else {
                promise.complete(result)
                return
            }
            do {
                let inner = try recovery(error)
                tracker.start()
                inner.onComplete(context: .immediate) { innerResult in
                    promise.complete(innerResult)
                    if tracker.end() { promise.finish() }
                }
            } catch {
                promise.fail(error)
            }
        }
    }

    /// Failed elements with their error replaced by `transform(error)`.
    public func mapError(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (any Error) -> any Error
    ) -> FutureStream<Value> {
        derive(context: context, cancelToken: cancelToken) { result, promise in
            guard case .failure(let error) = result else {
                promise.complete(result)
                return
            }
            promise.fail(transform(error))
        }
    }

    /// `result` with `onSuccess` applied to a value; failures and cancellation re-typed.
    private static func mapped<T: Sendable>(
        _ result: FutureResult<Value>, onSuccess: (Value) throws -> FutureResult<T>
    ) -> FutureResult<T> {
        switch result {
        case .success(let value):
            do { return try onSuccess(value) } catch { return .failure(error) }
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }
}
