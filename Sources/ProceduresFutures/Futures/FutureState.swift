/// Everything a future knows, as a value-type state machine.
///
/// The future keeps one of these under its lock; each `mutating` method is one transition and
/// returns what must happen next (callbacks to run, votes to send, closures to release). The
/// future performs that *after* unlocking, so no user code ever runs under a lock.
@usableFromInline struct FutureState<Value: Sendable> {
    @usableFromInline typealias RequestHandler = @Sendable (CancelRequestOptions) -> CancelResponse<Value>

    @usableFromInline enum Phase {
        case pending(PendingCallbacks)
        case completed(FutureResult<Value>)
    }

    /// The futures this one consumes: nothing, the future it is derived from or follows, or
    /// several (`sequence`, `zip`, `firstCompleted`).
    @usableFromInline enum Upstream {
        case none
        case one(any CancelVoteTarget)
        case many([any CancelVoteTarget])

        @inlinable var targets: [any CancelVoteTarget] {
            switch self {
            case .none: return []
            case .one(let target): return [target]
            case .many(let targets): return targets
            }
        }
    }

    /// What a completing future tells its upstream when its vote there is still live.
    @usableFromInline enum Disposal {
        /// Nothing: the upstream has completed already (the usual derived-future case).
        case release
        /// "I no longer need you": the remaining consumers decide.
        case withdraw
        /// "Cancel": used when this future is forced to complete as cancelled.
        case ask
    }

    /// The result of ``complete(_:disposal:)``. Holding `released*` until after unlocking
    /// makes the last release of user closures happen outside the lock.
    @usableFromInline struct Completion {
        @usableFromInline var callbacks: PendingCallbacks
        @usableFromInline var vote: CancelVote?
        @usableFromInline var voteTargets: [any CancelVoteTarget] = []
        @usableFromInline var releasedUpstream: Upstream = .none
        @usableFromInline var releasedHandlers: [RequestHandler] = []

        @inlinable init(callbacks: PendingCallbacks) {
            self.callbacks = callbacks
        }
    }

    /// A decided cancel request: handlers to run (outside the lock) and futures to ask next.
    @usableFromInline struct Request {
        @usableFromInline var options: CancelRequestOptions
        @usableFromInline var handlers: [RequestHandler] = []
        @usableFromInline var upstream: [any CancelVoteTarget] = []

        @inlinable init(options: CancelRequestOptions, handlers: [RequestHandler] = []) {
            self.options = options
            self.handlers = handlers
        }
    }

    /// What a pending future released by every holder still owes, taken by its deinit.
    struct Abandonment {
        var callbacks: PendingCallbacks
        var upstream: [any CancelVoteTarget]
        /// Whether the vote on `upstream` is still live and must be withdrawn.
        var withdraw: Bool
    }

    // Declaration order is layout order: the flags and `liveVoters` fill the bytes after
    // `phase`'s tag, and the counters are 32-bit, so a future is 104 bytes instead of 136
    // (a promise's future is allocated for every promise).
    @usableFromInline var phase: Phase
    /// Whether this future's vote on `upstream` has been neither cast nor withdrawn yet.
    @usableFromInline var upstreamVoteLive = false
    /// Whether some asker wanted the request forwarded upstream (did not say `thisFutureOnly`).
    @usableFromInline var forwardWanted = false
    /// Whether a request has been decided; handlers registered later run at once.
    @usableFromInline var requested = false
    /// Consumers that have neither asked nor withdrawn.
    @usableFromInline var liveVoters: Int32 = 0
    @usableFromInline var upstream: Upstream = .none
    @usableFromInline var askers: Int32 = 0
    /// How many of `requestHandlers` have been handed out to run.
    @usableFromInline var handlersCalled: Int32 = 0
    @usableFromInline var askedOptions: CancelRequestOptions = []
    @usableFromInline var requestHandlers: [RequestHandler] = []

    @inlinable init(phase: Phase, upstream: Upstream = .none) {
        self.phase = phase
        self.upstream = upstream
        if case .none = upstream {} else { upstreamVoteLive = true }
    }

    @inlinable var isPending: Bool {
        if case .pending = phase { return true }
        return false
    }

    @inlinable var result: FutureResult<Value>? {
        if case .completed(let result) = phase { return result }
        return nil
    }

    /// Adds a callback (and optionally counts its owner as a consumer). `false` if completed.
    @inlinable mutating func attach(_ callback: @escaping CallbackList.Callback, asVoter: Bool) -> Bool {
        guard case .pending(var callbacks) = phase else { return false }
        // Park a placeholder so the list is uniquely referenced while it grows.
        phase = .completed(.cancelled)
        callbacks.append(callback)
        phase = .pending(callbacks)
        if asVoter { liveVoters += 1 }
        return true
    }

    @inlinable mutating func addVoter() -> Bool {
        guard isPending else { return false }
        liveVoters += 1
        return true
    }

    @inlinable mutating func complete(_ result: FutureResult<Value>, disposal: Disposal) -> Completion? {
        guard case .pending(let callbacks) = phase else { return nil }
        phase = .completed(result)
        var completion = Completion(callbacks: callbacks)
        if upstreamVoteLive {
            upstreamVoteLive = false
            switch disposal {
            case .release: break
            case .withdraw: completion.vote = .withdraw
            case .ask: completion.vote = .ask([])
            }
            if completion.vote != nil { completion.voteTargets = upstream.targets }
        }
        completion.releasedUpstream = upstream
        upstream = .none
        completion.releasedHandlers = requestHandlers
        requestHandlers = []
        return completion
    }

    /// The transition of a pending future whose last reference went away (its deinit): it
    /// owes its upstream a withdrawal and its registered callbacks a ghost. `nil` if completed.
    mutating func abandon() -> Abandonment? {
        guard case .pending(let callbacks) = phase else { return nil }
        phase = .completed(.cancelled)  // never observed: nothing references this future any more
        let abandonment = Abandonment(callbacks: callbacks, upstream: upstream.targets, withdraw: upstreamVoteLive)
        upstream = .none
        upstreamVoteLive = false
        return abandonment
    }

    @inlinable mutating func receive(_ vote: CancelVote) -> Request? {
        guard isPending else { return nil }
        liveVoters -= 1
        if case .ask(let options) = vote {
            askers += 1
            askedOptions.formUnion(options)
            if !options.contains(.thisFutureOnly) { forwardWanted = true }
        }
        guard liveVoters <= 0, askers > 0 else { return nil }
        requested = true
        var request = Request(options: askedOptions)
        if handlersCalled < requestHandlers.count {
            request.handlers = Array(requestHandlers[Int(handlersCalled)...])
            handlersCalled = Int32(requestHandlers.count)
        }
        if forwardWanted, upstreamVoteLive {
            upstreamVoteLive = false
            request.upstream = upstream.targets
        }
        return request
    }

    /// For a future about to be forced to complete as cancelled: the request handlers that
    /// the tree rule has not run yet, to run now with the options asked so far. `nil` if none.
    mutating func forcedRequest() -> Request? {
        guard isPending else { return nil }
        requested = true
        guard handlersCalled < requestHandlers.count else { return nil }
        let request = Request(options: askedOptions, handlers: Array(requestHandlers[Int(handlersCalled)...]))
        handlersCalled = Int32(requestHandlers.count)
        return request
    }

    @inlinable mutating func addRequestHandler(_ handler: @escaping RequestHandler) -> Request? {
        guard isPending else { return nil }
        requestHandlers.append(handler)
        guard requested else { return nil }
        handlersCalled = Int32(requestHandlers.count)
        return Request(options: askedOptions, handlers: [handler])
    }

    /// Starts consuming `newUpstream` (already counted there as a voter). Returns the vote to
    /// send it at once: a withdrawal if this future completed meanwhile, an ask if a forwarded
    /// request is outstanding (so it reaches whichever future is now running).
    @inlinable mutating func follow(_ newUpstream: Upstream) -> (CancelVote?, released: Upstream) {
        guard isPending else { return (.withdraw, .none) }
        let old = upstream
        upstream = newUpstream
        upstreamVoteLive = true
        if requested, forwardWanted {
            upstreamVoteLive = false
            return (.ask([]), old)
        }
        return (nil, old)
    }
}
