// Every combinator returns a new future that consumes this one: cancel requests on it are
// forwarded here (tree rule), and `cancelToken` cancels it (the closure then never runs and the
// new future completes as cancelled). Closures run on `context`, default
// `DefaultExecutionContext.current`; results that need no closure (a failure reaching `map`)
// pass through without a hop. A throwing closure fails the new future with its error. On a
// completed future with the immediate context a combinator costs one allocation.
extension Future {
    /// A future with `transform` applied to the value; failures and cancellation pass through.
    ///
    /// ```swift
    /// let length: Future<Int> = text.map(context: .immediate) { $0.count }
    /// ```
    @inlinable public func map<T: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> T
    ) -> Future<T> {
        @Sendable func step(_ result: FutureResult<Value>) -> Future<T>.Step {
            guard case .success(let value) = result else { return .result(.cancelled) }
            do { return .result(.success(try transform(value))) } catch { return .result(.failure(error)) }
        }
        return derivedNow(context: context, cancelToken: cancelToken, passthrough: Self.passFailures, step: step)
            ?? derive(context: context, cancelToken: cancelToken, passthrough: Self.passFailures, step: step)
    }

    /// A future taking the eventual result of the future `transform` returns for the value.
    ///
    /// Once `transform` has returned, cancel requests on the new future go to the returned
    /// future (whichever is running). Returning an already cancelled future cancels the result.
    @inlinable public func flatMap<T: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (Value) throws -> Future<T>
    ) -> Future<T> {
        @Sendable func step(_ result: FutureResult<Value>) -> Future<T>.Step {
            guard case .success(let value) = result else { return .result(.cancelled) }
            do { return .follow(try transform(value)) } catch { return .result(.failure(error)) }
        }
        return derivedNow(context: context, cancelToken: cancelToken, passthrough: Self.passFailures, step: step)
            ?? derive(context: context, cancelToken: cancelToken, passthrough: Self.passFailures, step: step)
    }

    /// The same value if `isIncluded` accepts it, else a failure with ``FutureError/noSuchElement``.
    @inlinable public func withFilter(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ isIncluded: @escaping @Sendable (Value) throws -> Bool
    ) -> Future<Value> {
        derive(context: context, cancelToken: cancelToken, passthrough: Self.passFailures) { result in
            guard case .success(let value) = result else { return .result(.cancelled) }
            do {
                return .result(try isIncluded(value) ? .success(value) : .failure(FutureError.noSuchElement))
            } catch {
                return .result(.failure(error))
            }
        }
    }

    /// Runs `body` with the value on success; like ``onSuccess(context:cancelToken:_:)``.
    @inlinable public func forEach(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) {
        onSuccess(context: context, cancelToken: cancelToken, body)
    }

    /// A future with this one's result, completed after `body` has run with the value (on
    /// success). Use it to sequence a side effect inside a chain.
    @inlinable public func andThen(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) -> Future<Value> {
        derive(context: context, cancelToken: cancelToken, passthrough: Self.passFailures) { result in
            if case .success(let value) = result { body(value) }
            return .result(result)
        }
    }

    /// A future that replaces a failure with the value `recovery` returns (or its error).
    /// Success and cancellation pass through: cancellation is not an error to recover from.
    @inlinable public func recover(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ recovery: @escaping @Sendable (any Error) throws -> Value
    ) -> Future<Value> {
        derive(context: context, cancelToken: cancelToken, passthrough: Self.passNonFailures) { result in
            guard case .failure(let error) = result else { return .result(result) }
            do { return .result(.success(try recovery(error))) } catch { return .result(.failure(error)) }
        }
    }

    /// A future that replaces a failure with the eventual result of the future `recovery`
    /// returns. Success and cancellation pass through.
    @inlinable public func recoverWith(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ recovery: @escaping @Sendable (any Error) throws -> Future<Value>
    ) -> Future<Value> {
        derive(context: context, cancelToken: cancelToken, passthrough: Self.passNonFailures) { result in
            guard case .failure(let error) = result else { return .result(result) }
            do { return .follow(try recovery(error)) } catch { return .result(.failure(error)) }
        }
    }

    /// A future whose failure is replaced by `transform(error)`.
    @inlinable public func mapError(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (any Error) -> any Error
    ) -> Future<Value> {
        derive(context: context, cancelToken: cancelToken, passthrough: Self.passNonFailures) { result in
            guard case .failure(let error) = result else { return .result(result) }
            return .result(.failure(transform(error)))
        }
    }
}
