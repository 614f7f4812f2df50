import ProceduresSupport

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
        addHandler(context: context, cancelToken: cancelToken, select: { $0 }, body)
    }

    /// What every handler method does: runs `body` with what `select` picks from the result
    /// (nothing if it picks `nil`). `select` is a literal that captures nothing, so the
    /// callback below is the handler's only allocation: `onSuccess` used to wrap `body` in an
    /// `onComplete` closure first, one more allocation per handler.
    @inlinable func addHandler<Argument: Sendable>(
        context: (any ExecutionContext)?,
        cancelToken: CancellationToken?,
        select: @escaping @Sendable (FutureResult<Value>) -> Argument?,
        _ body: @escaping @Sendable (Argument) -> Void
    ) {
        // The common case first: it skips `??`, which copies the existential context.
        if cancelToken == nil, context?.executesImmediately == true {
            return addImmediateHandler(select: select, body)
        }
        let context = context ?? DefaultExecutionContext.current
        if let cancelToken {
            addGatedHandler(context: context, cancelToken: cancelToken, select: select, body)
        } else if context.executesImmediately {
            addImmediateHandler(select: select, body)
        } else {
            whenComplete { owner in
                let result = unsafeDowncast(owner, to: Future<Value>.self).completedResult
                if let argument = select(result) {
                    context.execute {
                        assertNoLibraryLockHeld("a future's handler")
                        body(argument)
                    }
                }
                return CallbackList()
            }
        }
    }

    @inlinable func addImmediateHandler<Argument: Sendable>(
        select: @escaping @Sendable (FutureResult<Value>) -> Argument?,
        _ body: @escaping @Sendable (Argument) -> Void
    ) {
        whenComplete { owner in
            if let argument = select(unsafeDowncast(owner, to: Future<Value>.self).completedResult) {
                assertNoLibraryLockHeld("a future's handler")
                body(argument)
            }
            return CallbackList()
        }
    }

    @inlinable func addGatedHandler<Argument: Sendable>(
        context: any ExecutionContext,
        cancelToken: CancellationToken,
        select: @escaping @Sendable (FutureResult<Value>) -> Argument?,
        _ body: @escaping @Sendable (Argument) -> Void
    ) {
        let gate = HandlerGate(body)
        let registration = cancelToken.observeCancellation { gate.close() }
        if registration == nil, cancelToken.isCancelled { return }
        whenComplete { owner in
            let result = unsafeDowncast(owner, to: Future<Value>.self).completedResult
            if let registration { cancelToken.removeHandler(registration) }
            guard let argument = select(result) else {
                gate.close()  // this outcome never runs `body`: release it now
                return CallbackList()
            }
            if context.executesImmediately {
                assertNoLibraryLockHeld("a future's handler")
                gate.take()?(argument)
            } else {
                context.execute {
                    assertNoLibraryLockHeld("a future's handler")
                    gate.take()?(argument)
                }
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
        addHandler(context: context, cancelToken: cancelToken, select: { result in
            if case .success(let value) = result { return value }
            return nil
        }, body)
    }

    /// Runs `body` with the error if the future fails. See ``onComplete(context:cancelToken:_:)``.
    @inlinable public func onFailure(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (any Error) -> Void
    ) {
        addHandler(context: context, cancelToken: cancelToken, select: { result in
            if case .failure(let error) = result { return error }
            return nil
        }, body)
    }

    /// Runs `body` if the future completes as cancelled. See ``onComplete(context:cancelToken:_:)``.
    @inlinable public func onCancel(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        addHandler(context: context, cancelToken: cancelToken, select: { result in
            if case .cancelled = result { return () }
            return nil
        }, body)
    }
}
