import ProceduresSupport
/// The part of a future's state that its unspecialised deinits (the future's, the promise's)
/// read: kept apart from its `FutureState`, whose layout depends on `Value`, and not generic,
/// so that it sits at a fixed offset and reading it takes no generic metadata look-up.
@usableFromInline struct FutureLinks {
    /// How upstream callbacks reach the future while it is a pending consumer (derived, the
    /// result of `sequence`/`zip`/`firstCompleted`, or following another future): its
    /// `ConsumerAnchor`; `nil` otherwise and once completed. Every pending future with an
    /// upstream has one, so `nil` tells the deinit there is nothing to settle: that is the
    /// whole cost of the deinit for a completed future.
    @usableFromInline var anchor: AnyObject?
    /// Whether the future is pending and follows no other future, so that only its producer
    /// (a promise) can complete it: what `Promise.deinit` must know. A copy of what the
    /// future's state says, changed with it under the lock.
    @usableFromInline var awaitsProducer: Bool
    /// Set when the promise went away while a cancel handler it registered could still
    /// complete the future: the next decided request then completes it.
    @usableFromInline var producerReleased = false

    @inlinable init(awaitsProducer: Bool) { self.awaitsProducer = awaitsProducer }
}

/// The read side of a result that arrives later: a value, an error, or cancellation.
///
/// A future completes exactly once. Register handlers (`onComplete`, `onSuccess`, …) or derive
/// new futures with combinators (`map`, `flatMap`, …); handlers registered after completion
/// still run, once. Completion, handlers and combinators are thread-safe.
///
/// ```swift
/// let promise = Promise<Int>()
/// promise.future
///     .map { $0 * 2 }
///     .onSuccess { print($0) }
/// promise.succeed(21)   // prints 42
/// ```
///
/// **Threading.** Your closures run on the `context:` you pass, else on
/// ``DefaultExecutionContext/current`` (`DispatchQueue.global()` unless changed). Never while
/// a lock is held. With the immediate context they run on the thread that completes the
/// future, inside a loop that keeps long chains from growing the stack.
///
/// **Cancellation.** Cancelling a future is a *request* sent up the chain to whatever is
/// still running; see ``cancellationToken()``, ``cancel(options:)`` and
/// `Promise.onRequestCancel(_:)`. A future shared by several consumers is only asked once
/// every consumer has asked (the tree rule).
///
/// **Memory.** One allocation per future; handlers and closures are released as soon as the
/// future completes. A pending future is held by whoever holds it and by the futures derived
/// from it, not by the future it waits on: a derived future you drop goes away at once and
/// withdraws its cancel vote (what was registered on it still runs; see `ConsumerAnchor`).
public final class Future<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `links` and `state` are only touched inside `withLock`, under this object's
    // stripe of `StripedLock` (or before the future is shared, or in deinit), except that a
    // completed future's result is read without it (`completedResult`).
    // That lock is also why the runtime exclusivity check is off (it would find nothing).
    // The hot paths are `@inlinable` so they are specialised for the caller's `Value`:
    // unspecialised, every `map` would look up type metadata at run time.

    // Unchecked, both: only touched under the lock above, which already excludes every other access.
    @exclusivity(unchecked) @usableFromInline var links: FutureLinks
    @exclusivity(unchecked) @usableFromInline var state: FutureState<Value>

    @inlinable init(upstream: FutureState<Value>.Upstream = .none) {
        if case .none = upstream { links = FutureLinks(awaitsProducer: true) } else { links = FutureLinks(awaitsProducer: false) }
        state = FutureState(phase: .pending(PendingCallbacks()), upstream: upstream)
    }

    /// A stand-in for a released pending future: it takes over that future's callbacks, so
    /// they still run when the result arrives. Nothing else references it.
    @usableFromInline init(ghostOf callbacks: PendingCallbacks) {
        links = FutureLinks(awaitsProducer: false)  // no promise holds a ghost
        state = FutureState(phase: .pending(callbacks))
    }

    /// A future that has already completed with `result`.
    @inlinable public init(result: FutureResult<Value>) {
        links = FutureLinks(awaitsProducer: false)
        state = FutureState(phase: .completed(result))
    }

    /// A future that has already succeeded with `value`.
    @inlinable public convenience init(value: Value) {
        self.init(result: .success(value))
    }

    /// A future that has already failed with `error`.
    @inlinable public convenience init(error: any Error) {
        self.init(result: .failure(error))
    }

    deinit {
        // Released while pending: stop voting and hand on what was registered (tree rule).
        // No other reference exists, so `state` needs no lock here.
        guard let anchor = links.anchor, var abandonment = state.abandon() else { return }
        settleAbandoned(&abandonment, anchor: unsafeDowncast(anchor, to: ConsumerAnchor<Value>.self))
    }

    /// The deinit's work for a future released while pending, in this order: give what was
    /// registered on it to a ghost and run work parked by a racing callback (see
    /// ``ConsumerAnchor``); withdraw its vote, so the remaining consumers decide; then drop its
    /// upstream through ``DeferredRelease``, as that may be the last reference to a long chain.
    /// Runs on the releasing thread, never under a lock (futures are never released inside one).
    func settleAbandoned(_ abandonment: inout FutureState<Value>.Abandonment, anchor: ConsumerAnchor<Value>) {
        let ghost = abandonment.callbacks.isEmpty ? nil : Future(ghostOf: abandonment.callbacks)
        abandonment.callbacks = PendingCallbacks()
        for work in anchor.settle(ghost: ghost) { work(ghost).run() }
        if abandonment.withdraw { CancelVoting.deliver(.withdraw, to: abandonment.upstream) }
        var upstream = abandonment.upstream.map { $0 as AnyObject }
        abandonment.upstream = []
        DeferredRelease.release(&upstream)
    }

    @inline(__always)
    @inlinable func withLock<R>(_ body: (inout FutureState<Value>) -> R) -> R {
        StripedLock.withLock(for: self) { body(&state) }
    }

    /// The result, or `nil` while pending. A snapshot: it may change right after it returns
    /// `nil`. One lock.
    @inlinable public var result: FutureResult<Value>? { withLock { $0.result } }

    /// Whether the future has completed (with any outcome). Once `true`, it stays `true`.
    @inlinable public var isCompleted: Bool { withLock { !$0.isPending } }

    /// The result of a future known to have completed: read by its callbacks, and by code that
    /// found it completed under the lock.
    ///
    /// No lock (it was a second lock per callback): once completed, `state` is never written
    /// again (every transition of ``FutureState`` first checks that it is pending), and whoever
    /// reads here completed the future or saw it completed under the lock, which orders the
    /// write of the result before this read.
    @inlinable var completedResult: FutureResult<Value> {
        guard case .completed(let result) = state.phase else {
            preconditionFailure("A future's callbacks ran before it completed")
        }
        return result
    }

    // MARK: - Completion

    /// Completes the future and returns the callbacks that are now ready, without running
    /// them, so that callers inside a ``CallbackList`` loop can hand them back. `nil` if the
    /// future had already completed (the first completion wins).
    @inlinable func _complete(
        _ result: FutureResult<Value>, disposal: FutureState<Value>.Disposal
    ) -> CallbackList? {
        var releasedAnchor: AnyObject?  // dropped after unlocking
        guard let completion = withLock({ state -> FutureState<Value>.Completion? in
            guard let completion = state.complete(result, disposal: disposal) else { return nil }
            links.awaitsProducer = false
            if links.anchor != nil { swap(&releasedAnchor, &links.anchor) }
            return completion
        }) else {
            return nil
        }
        _ = releasedAnchor
        if let vote = completion.vote {
            CancelVoting.deliver(vote, to: completion.voteTargets)
        }
        return CallbackList(completion.callbacks, owner: self)
    }

    /// Completes the future and runs the callbacks. `false` if it had already completed.
    @discardableResult
    @inlinable func complete(_ result: FutureResult<Value>, disposal: FutureState<Value>.Disposal = .withdraw) -> Bool {
        guard let callbacks = _complete(result, disposal: disposal) else { return false }
        callbacks.run()
        return true
    }

    /// Adds `callback` to run on completion; if the future has completed, runs it now (and
    /// whatever it makes ready). The owner is counted as a cancel voter when `asVoter`.
    /// Returns `false` if it ran at once, in which case no voter was counted.
    @discardableResult
    @inlinable func whenComplete(asVoter: Bool = false, _ callback: @escaping CallbackList.Callback) -> Bool {
        if withLock({ $0.attach(callback, asVoter: asVoter) }) { return true }
        callback(self).run()
        return false
    }

    // MARK: - Following another future

    /// What a step of a combinator produced: a result, or a future to take the result from.
    @usableFromInline enum Step {
        case result(FutureResult<Value>)
        case follow(Future<Value>)
    }

    /// Applies a step and returns the callbacks made ready (for the caller's loop).
    @inlinable func _apply(_ step: Step) -> CallbackList {
        switch step {
        case .result(let result): return _complete(result, disposal: .release) ?? CallbackList()
        case .follow(let other): return _follow(other)
        }
    }

    /// Makes this future take `other`'s eventual result, and become its consumer, so cancel
    /// requests now reach `other`. Returns the callbacks made ready if `other` had completed.
    /// `other` reaches this future through its anchor, so releasing this future withdraws its
    /// vote there.
    @inlinable func _follow(_ other: Future<Value>) -> CallbackList {
        if other === self {
            return _complete(.failure(FutureError.cyclicCompletion), disposal: .withdraw) ?? CallbackList()
        }
        let anchor = consumerAnchor()
        let attached = other.withLock {
            $0.attach({ owner in
                let result = unsafeDowncast(owner, to: Future<Value>.self).completedResult
                if let target = anchor.target { return target._complete(result, disposal: .release) ?? CallbackList() }
                return anchor.afterRelease { $0?._complete(result, disposal: .release) ?? CallbackList() }
            }, asVoter: true)
        }
        guard attached else {
            return _complete(other.completedResult, disposal: .release) ?? CallbackList()
        }
        consume(.one(other))
        return CallbackList()
    }

    /// Claims a promise's pending future for `Promise.complete(with:)`: `false` if it has
    /// completed or already follows another future (first wins).
    @inlinable func startFollowing() -> Bool {
        withLock { state in
            guard state.isPending, links.awaitsProducer else { return false }
            links.awaitsProducer = false  // following from now on: the promise no longer owes a result
            return true
        }
    }

    /// The anchor through which upstream callbacks reach this future, made on first use (a
    /// promise's future only becomes a consumer if it is completed with another future).
    @inlinable func consumerAnchor() -> ConsumerAnchor<Value> {
        if let existing = withLock({ _ in links.anchor }) { return unsafeDowncast(existing, to: ConsumerAnchor<Value>.self) }
        let made = ConsumerAnchor(self)
        return withLock { state in
            if let existing = links.anchor { return unsafeDowncast(existing, to: ConsumerAnchor<Value>.self) }  // `made` is dropped after unlocking
            if state.isPending { links.anchor = made }
            return made
        }
    }

    /// Sets the anchor of a future nobody else can see yet (just created by a combinator).
    @inlinable func installAnchor() -> ConsumerAnchor<Value> {
        let made = ConsumerAnchor(self)
        links.anchor = made
        return made
    }

    /// Records `upstream` (whose futures already count this one as a voter) as what this
    /// future consumes, and sends any vote that is due at once.
    @inlinable func consume(_ upstream: FutureState<Value>.Upstream) {
        let (vote, released) = withLock { state in
            links.awaitsProducer = false  // following now (or completed already)
            return state.follow(upstream)
        }
        _ = released  // released here, after unlocking
        if let vote { CancelVoting.deliver(vote, to: upstream.targets) }
    }
}

extension Future: CancelVoteTarget {
    @inlinable func addCancelVoter() -> Bool {
        withLock { $0.addVoter() }
    }

    @inlinable func attachConsumer(_ callback: @escaping CallbackList.Callback) -> Bool {
        withLock { $0.attach(callback, asVoter: true) }
    }

    /// Makes this future a consumer of several futures at once (`sequence`, `zip`, …): each
    /// upstream gets its callback; callbacks of upstreams that have completed already run
    /// last, after every vote is counted, so a quick failure cannot withdraw uncounted votes.
    @inlinable func consumeAll(_ attachments: [(any CancelVoteTarget, CallbackList.Callback)]) {
        var attached: [any CancelVoteTarget] = []
        var ready: [(CallbackList.Callback, AnyObject)] = []
        for (upstream, callback) in attachments {
            if upstream.attachConsumer(callback) { attached.append(upstream) } else { ready.append((callback, upstream)) }
        }
        consume(.many(attached))
        for (callback, upstream) in ready { callback(upstream).run() }
    }

    @inlinable func receiveCancelVote(_ vote: CancelVote) -> [any CancelVoteTarget] {
        guard let request = withLock({ $0.receive(vote) }) else { return [] }
        runRequestHandlers(request)
        if !request.handlers.isEmpty { completeIfAbandonedAfterRequest() }
        return request.upstream
    }

    /// After a request's handlers ran: if the promise is gone, nothing can complete the
    /// future any more (a handler that answered `.continue` counted on the promise), so it
    /// completes as cancelled. Not inlinable: the rare path.
    @usableFromInline func completeIfAbandonedAfterRequest() {
        if withLock({ _ in links.producerReleased && links.awaitsProducer }) { complete(.cancelled) }
    }

    /// Completes this future as cancelled now (a forcing token has just asked it). Its own
    /// producer is asked too, if the tree rule had held the request back: once the future has
    /// completed nobody can receive the producer's result, so every consumer's vote is moot.
    /// The handlers' responses are ignored (the future has completed).
    @usableFromInline func forceCancel(thisFutureOnly: Bool) {
        var releasedAnchor: AnyObject?  // dropped after unlocking
        guard let (completion, request) = withLock({ state -> (FutureState<Value>.Completion, FutureState<Value>.Request?)? in
            let request = state.forcedRequest()
            guard let completion = state.complete(.cancelled, disposal: thisFutureOnly ? .withdraw : .ask) else { return nil }
            links.awaitsProducer = false
            if links.anchor != nil { swap(&releasedAnchor, &links.anchor) }
            return (completion, request)
        }) else {
            return
        }
        _ = releasedAnchor
        if let request {
            assertNoLibraryLockHeld("a future's cancel-request handlers")
            for handler in request.handlers { _ = handler(request.options) }
        }
        if let vote = completion.vote {
            CancelVoting.deliver(vote, to: completion.voteTargets)
        }
        CallbackList(completion.callbacks, owner: self).run()
    }

    @inlinable func addRequestHandler(_ handler: @escaping FutureState<Value>.RequestHandler) {
        if let request = withLock({ $0.addRequestHandler(handler) }) {
            runRequestHandlers(request)
        }
    }

    @inlinable func runRequestHandlers(_ request: FutureState<Value>.Request) {
        assertNoLibraryLockHeld("a future's cancel-request handlers")
        for handler in request.handlers {
            if case .complete(let result) = handler(request.options) {
                complete(result)
            }
        }
    }

    /// Completes a future whose promise is gone (unless completed or following another
    /// future): as cancelled if a cancel request had been decided (the producer stopped, maybe
    /// before its handler's answer was applied); left pending if the promise registered cancel
    /// handlers (a request can still complete it: DESIGN.md semantic 14, FutureKit's
    /// `asynFunc`); otherwise failed with `FutureError.brokenPromise`.
    ///
    /// Called from `Promise.deinit`, which runs unspecialised: the usual case (completed, or
    /// following) touches only `links` and the lock, no generic metadata. The lock
    /// is needed: a cancel token may force the future on another thread meanwhile.
    @inlinable func breakPromiseIfAbandoned() {
        guard StripedLock.withLock(for: self, { links.awaitsProducer }) else { return }
        breakPromise()
    }

    @usableFromInline func breakPromise() {
        let outcome = withLock { state -> FutureResult<Value>? in
            guard links.awaitsProducer else { return nil }  // completed or started following meanwhile
            if state.requested { return .cancelled }
            if !state.requestHandlers.isEmpty {
                // The next decided request runs the handlers, then completes the future if they
                // did not (`completeIfAbandonedAfterRequest`); a forcing token completes it too.
                links.producerReleased = true
                return nil
            }
            return .failure(FutureError.brokenPromise)
        }
        if let outcome { complete(outcome) }
    }
}
