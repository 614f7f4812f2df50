import ProceduresSupport
/// A consumer's handle for asking a future to cancel: its vote under the tree rule.
///
/// Take one with ``Future/cancellationToken()``. While it lives, it counts as one consumer of
/// the future; ``cancel(options:)`` casts its vote (once), and releasing it without cancelling
/// withdraws it, so the remaining consumers decide. A token taken from a completed future does
/// nothing.
///
/// The request travels up the chain: from a derived future to the future it waits on, and on
/// to whichever future is currently running (including one returned inside `flatMap`). There,
/// the promise's `onRequestCancel` handlers decide; a promise without handlers ignores it.
///
/// Thread-safe; cancelling from any thread never deadlocks (no lock is held while handlers
/// run). Cost: one allocation and one lock per hop up the chain.
public final class FutureCancelToken: Cancelable, @unchecked Sendable {
    // @unchecked: `used` is only touched under this object's stripe of `StripedLock`;
    // `target` is immutable.
    private let target: (any CancelVoteTarget)?
    private var used = false

    init(target: any CancelVoteTarget) {
        self.target = target.addCancelVoter() ? target : nil
    }

    /// Sends a plain cancel request (no options). Same as `cancel(options: [])`.
    public func cancel() {
        cancel(options: [])
    }

    /// Sends a cancel request; only the first call on a token has an effect.
    ///
    /// - Parameter options: ``CancelRequestOptions/thisFutureOnly`` stops the request at this
    ///   future; ``CancelRequestOptions/forceImmediately`` also completes this future as
    ///   cancelled at once (its producer is asked, not forced).
    public func cancel(options: CancelRequestOptions) {
        let first = StripedLock.withLock(for: self) { () -> Bool in
            defer { used = true }
            return !used
        }
        guard first, let target else { return }
        CancelVoting.deliver(.ask(options), to: [target])
        if options.contains(.forceImmediately) {
            target.forceCancel(thisFutureOnly: options.contains(.thisFutureOnly))
        }
    }

    /// Whether ``cancel(options:)`` has been called on this token.
    public var isCancellationRequested: Bool {
        StripedLock.withLock(for: self) { used }
    }

    deinit {
        // Going away without asking: stop counting as a consumer. (No other reference can
        // exist during deinit, so `used` needs no lock here.)
        if !used, let target {
            CancelVoting.deliver(.withdraw, to: [target])
        }
    }
}

extension Future {
    /// Takes a cancel token: a new consumer's vote on this future.
    ///
    /// Keep the token as long as you may want to cancel; releasing it uncancelled withdraws
    /// the vote. Under the tree rule a future with other live consumers (derived futures,
    /// other tokens) is only asked once they have all asked or gone away.
    public func cancellationToken() -> FutureCancelToken {
        FutureCancelToken(target: self)
    }

    /// Takes a token and cancels it at once: "this consumer no longer wants the result".
    ///
    /// ```swift
    /// let download = fetch(url)
    /// download.cancel()                              // asks the producer, tree rule applies
    /// download.cancel(options: .forceImmediately)   // and completes `download` as cancelled now
    /// ```
    public func cancel(options: CancelRequestOptions = []) {
        cancellationToken().cancel(options: options)
    }
}
