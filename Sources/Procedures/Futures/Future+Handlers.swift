extension Future {
    /// Runs `body` once with the result, whatever the outcome (the clean-up handler).
    ///
    /// Runs on `context` (default: ``DefaultExecutionContext/current``), never under a lock.
    /// Registered after completion, it still runs once. If `cancelToken` is cancelled before
    /// `body` starts, `body` never runs and is released at once. Handlers only observe: they
    /// do not count as consumers for cancellation, and do not keep the future alive (a future
    /// released while pending hands its handlers to a stand-in, and they still run).
    ///
    /// Cost with the immediate context: one closure allocation and two uncontended locks.
    @inlinable public func onComplete(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (FutureResult<Value>) -> Void
    ) {
        let context = context ?? DefaultExecutionContext.current
        if let cancelToken {
            addGatedHandler(context: context, cancelToken: cancelToken, body)
        } else if context.executesImmediately {
            whenComplete { owner in
                body(unsafeDowncast(owner, to: Future<Value>.self).completedResult)
                return CallbackList()
            }
        } else {
            whenComplete { owner in
                let result = unsafeDowncast(owner, to: Future<Value>.self).completedResult
                context.execute { body(result) }
                return CallbackList()
            }
        }
    }

    @inlinable func addGatedHandler(
        context: any ExecutionContext,
        cancelToken: CancellationToken,
        _ body: @escaping @Sendable (FutureResult<Value>) -> Void
    ) {
        let gate = HandlerGate(body)
        let registration = cancelToken.observeCancellation { gate.close() }
        if registration == nil, cancelToken.isCancelled { return }
        whenComplete { owner in
            let result = unsafeDowncast(owner, to: Future<Value>.self).completedResult
            if let registration { cancelToken.removeHandler(registration) }
            if context.executesImmediately {
                gate.take()?(result)
            } else {
                context.execute { gate.take()?(result) }
            }
            return CallbackList()
        }
    }

    /// Runs `body` with the value if the future succeeds. See ``onComplete(context:cancelToken:_:)``.
    @inlinable public func onSuccess(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) {
        onComplete(context: context, cancelToken: cancelToken) { result in
            if case .success(let value) = result { body(value) }
        }
    }

    /// Runs `body` with the error if the future fails. See ``onComplete(context:cancelToken:_:)``.
    @inlinable public func onFailure(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (any Error) -> Void
    ) {
        onComplete(context: context, cancelToken: cancelToken) { result in
            if case .failure(let error) = result { body(error) }
        }
    }

    /// Runs `body` if the future completes as cancelled. See ``onComplete(context:cancelToken:_:)``.
    @inlinable public func onCancel(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        onComplete(context: context, cancelToken: cancelToken) { result in
            if case .cancelled = result { body() }
        }
    }
}
