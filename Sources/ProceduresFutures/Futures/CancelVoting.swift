/// A consumer's message to a future it depends on.
///
/// Consumers are derived futures and cancel tokens. Each holds one vote on its upstream: it
/// either *asks* for cancellation, or *withdraws* (it completed or went away without asking).
/// A future acts on the request once no live consumer is left and at least one has asked.
@usableFromInline enum CancelVote {
    case ask(CancelRequestOptions)
    case withdraw
}

/// A future seen without its value type, as the cancellation machinery needs it.
@usableFromInline protocol CancelVoteTarget: AnyObject, Sendable {
    /// Counts a new consumer. Returns `false` (counting nothing) if the future has completed.
    @inlinable func addCancelVoter() -> Bool

    /// Adds a completion callback, counting its owner as a consumer. `false` (nothing added,
    /// nothing counted) if the future has completed.
    @inlinable func attachConsumer(_ callback: @escaping CallbackList.Callback) -> Bool

    /// Records a vote and, if that decides the request, runs the promise's request handlers.
    /// Returns the upstream futures that must now be asked in turn (forwarding is done by
    /// ``CancelVoting/deliver(_:to:)`` in a loop, so a long chain does not grow the stack).
    @inlinable func receiveCancelVote(_ vote: CancelVote) -> [any CancelVoteTarget]

    /// Completes the future as cancelled now; its own upstream vote becomes an ask, or a
    /// withdrawal when `thisFutureOnly`.
    @inlinable func forceCancel(thisFutureOnly: Bool)
}

@usableFromInline enum CancelVoting {
    /// Delivers `vote` to each target and forwards the resulting requests up the chains.
    @inlinable static func deliver(_ vote: CancelVote, to targets: [any CancelVoteTarget]) {
        var work = targets.map { ($0, vote) }
        while let (target, vote) = work.popLast() {
            for next in target.receiveCancelVote(vote) {
                // Forwarded requests are plain: options only ever apply where they were given.
                work.append((next, .ask([])))
            }
        }
    }
}
