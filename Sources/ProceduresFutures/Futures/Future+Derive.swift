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
    ///
    /// This future's callback reaches the new one through a ``DeriveLink`` (its anchor),
    /// without keeping it alive: released while this one is pending, it withdraws its vote.
    /// `step` still runs when this future completes (its side effects are the user's), and what
    /// was registered on the released future runs on its ghost; only the released future itself
    /// is not completed.
    @inlinable func derive<T: Sendable>(
        context: (any ExecutionContext)?,
        cancelToken: CancellationToken?,
        passthrough: @escaping (FutureResult<Value>) -> FutureResult<T>?,
        step: @escaping @Sendable (FutureResult<Value>) -> Future<T>.Step
    ) -> Future<T> {
        if let cancelToken, cancelToken.isCancelled { return Future<T>(result: .cancelled) }
        let target = Future<T>(upstream: .one(self))
        let link = DeriveLink<Value, T>(
            target, context: context ?? DefaultExecutionContext.current, passthrough: passthrough, step: step)
        target.links.anchor = link  // nobody else sees `target` yet: no lock needed
        whenComplete(asVoter: true) { owner in link.sourceCompleted(owner) }
        if let cancelToken { target.bind(to: cancelToken) }
        return target
    }

    /// Completes this future as cancelled (asking its upstream) when `token` is cancelled.
    ///
    /// The token holds this future until it completes (or the token does): the token is a
    /// handle that can still cancel it, so the future is not "released" under the tree rule,
    /// and a cancelled token must still stop the closure (and complete the derived future as cancelled) even if nobody else
    /// holds the future.
    @inlinable func bind(to token: CancellationToken) {
        guard let registration = token.observeCancellation({ [self] in forceCancel(thisFutureOnly: false) })
        else { return }
        whenComplete { _ in
            token.removeHandler(registration)
            return CallbackList()
        }
    }
}

/// What a future derived by a combinator needs from the future it consumes: its closures, and
/// (as its ``ConsumerAnchor``) a weak way to reach it. The source's callback captures only this
/// object, so registering costs no closure context.
@usableFromInline final class DeriveLink<Source: Sendable, Value: Sendable>: ConsumerAnchor<Value>, @unchecked Sendable {
    // @unchecked: the stored closures and context are immutable; the anchor's state is locked
    // as its superclass documents.
    @usableFromInline let context: any ExecutionContext
    @usableFromInline let immediate: Bool
    @usableFromInline let passthrough: (FutureResult<Source>) -> FutureResult<Value>?
    @usableFromInline let step: @Sendable (FutureResult<Source>) -> Future<Value>.Step

    @inlinable init(
        _ target: Future<Value>,
        context: any ExecutionContext,
        passthrough: @escaping (FutureResult<Source>) -> FutureResult<Value>?,
        step: @escaping @Sendable (FutureResult<Source>) -> Future<Value>.Step
    ) {
        self.context = context
        immediate = context.executesImmediately
        self.passthrough = passthrough
        self.step = step
        super.init(target)
    }

    /// The source's callback: completes the derived future, or its ghost, or (released with
    /// nothing registered on it) just runs the closure for its side effects.
    @inlinable func sourceCompleted(_ owner: AnyObject) -> CallbackList {
        let result = unsafeDowncast(owner, to: Future<Source>.self).completedResult
        if let target { return settle(result, into: target) }
        return afterRelease { [self] in settle(result, into: $0) }
    }

    @inlinable func settle(_ result: FutureResult<Source>, into target: Future<Value>?) -> CallbackList {
        if let passed = passthrough(result) {
            return target?._complete(passed, disposal: .release) ?? CallbackList()
        }
        if immediate {
            // Completed already means forced or token-cancelled: the closure must not run.
            if let target, target.isCompleted { return CallbackList() }
            let outcome = step(result)
            return target?._apply(outcome) ?? CallbackList()
        }
        context.execute { [step] in
            if let target, target.isCompleted { return }
            let outcome = step(result)
            target?._apply(outcome).run()
        }
        return CallbackList()
    }
}
