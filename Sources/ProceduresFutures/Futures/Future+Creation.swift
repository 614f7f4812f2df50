/// A future of `body`'s result, run on `context` (default: ``DefaultExecutionContext/current``).
/// A throwing `body` fails the future.
///
/// ```swift
/// let parsed = future(context: DispatchQueue.global()) { try JSONDecoder().decode(Model.self, from: data) }
/// ```
public func future<T: Sendable>(
    context: (any ExecutionContext)? = nil,
    _ body: @escaping @Sendable () throws -> T
) -> Future<T> {
    Future(value: ()).map(context: context) { _ in try body() }
}

/// Adapts a completion-handler API that calls back with `(value?, error?)`.
///
/// An error fails the future; otherwise a value succeeds it; neither fails it with
/// ``FutureError/missingValue``. Only the first call back counts. If the API drops the
/// callback without calling it, the future fails with ``FutureError/brokenPromise``.
///
/// ```swift
/// let answer: Future<Int> = future(method: legacy.fetchAnswer)   // fetchAnswer(_ done: (Int?, Error?) -> Void)
/// ```
public func future<T: Sendable>(
    method: (@escaping @Sendable (T?, (any Error)?) -> Void) -> Void
) -> Future<T> {
    let promise = Promise<T>()
    method { value, error in
        if let error {
            promise.fail(error)
        } else if let value {
            promise.succeed(value)
        } else {
            promise.fail(FutureError.missingValue)
        }
    }
    return promise.future
}

/// Adapts a completion-handler API that calls back with only an optional error.
public func future(method: (@escaping @Sendable ((any Error)?) -> Void) -> Void) -> Future<Void> {
    let promise = Promise<Void>()
    method { error in
        if let error { promise.fail(error) } else { promise.succeed(()) }
    }
    return promise.future
}

/// Adapts a completion-handler API that calls back with a value and cannot fail.
public func future<T: Sendable>(method: (@escaping @Sendable (T) -> Void) -> Void) -> Future<T> {
    let promise = Promise<T>()
    method { promise.succeed($0) }
    return promise.future
}
