/// The machinery every combinator shares: a derived future that consumes this one.
extension Future {
    /// Results that need no user code when the closure only handles successes.
    @inlinable static func passFailures<T: Sendable>(_ result: FutureResult<Value>) -> FutureResult<T>? {
        switch result {
        case .success: return nil
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }

    /// Results that need no user code when the closure only handles failures.
    @inlinable static func passNonFailures(_ result: FutureResult<Value>) -> FutureResult<Value>? {
        if case .failure = result { return nil }
        return result
    }

    /// The derived future when this one has completed and `step` may run inline: no callback,
    /// no closure allocation. `nil` when the general path is needed.
    @inline(__always)
    @inlinable func derivedNow<T: Sendable>(
        context: (any ExecutionContext)?,
        cancelToken: CancellationToken?,
        passthrough: (FutureResult<Value>) -> FutureResult<T>?,
        step: (FutureResult<Value>) -> Future<T>.Step
    ) -> Future<T>? {
        guard cancelToken == nil, let result = self.result else { return nil }
        if let passed = passthrough(result) { return Future<T>(result: passed) }
        guard (context ?? DefaultExecutionContext.current).executesImmediately else { return nil }
        switch step(result) {
        case .result(let result): return Future<T>(result: result)
        case .follow(let other): return other
        }
    }

    /// A future completed by `step` (run on `context`) once this one completes, or directly by
    /// `passthrough` when it yields a result. It counts as a consumer of this future, so cancel
    /// requests on it are forwarded here, and it completes as cancelled (without running
    /// `step`) if `cancelToken` is cancelled first.
    @inlinable func derive<T: Sendable>(
        context: (any ExecutionContext)?,
        cancelToken: CancellationToken?,
        passthrough: @escaping (FutureResult<Value>) -> FutureResult<T>?,
        step: @escaping @Sendable (FutureResult<Value>) -> Future<T>.Step
    ) -> Future<T> {
        if let cancelToken, cancelToken.isCancelled { return Future<T>(result: .cancelled) }
        let context = context ?? DefaultExecutionContext.current
        let immediate = context.executesImmediately
        let target = Future<T>(upstream: .one(self))
        whenComplete(asVoter: true) { [self] in
            let result = completedResult
            if let passed = passthrough(result) {
                return target._complete(passed, disposal: .release) ?? CallbackList()
            }
            if immediate {
                // Completed already means forced or token-cancelled: the closure must not run.
                guard !target.isCompleted else { return CallbackList() }
                return target._apply(step(result))
            }
            context.execute {
                guard !target.isCompleted else { return }
                target._apply(step(result)).run()
            }
            return CallbackList()
        }
        if let cancelToken { target.bind(to: cancelToken) }
        return target
    }

    /// Completes this future as cancelled (asking its upstream) when `token` is cancelled.
    @inlinable func bind(to token: CancellationToken) {
        guard let registration = token.observeCancellation({ [self] in forceCancel(thisFutureOnly: false) })
        else { return }
        whenComplete {
            token.removeHandler(registration)
            return CallbackList()
        }
    }
}
