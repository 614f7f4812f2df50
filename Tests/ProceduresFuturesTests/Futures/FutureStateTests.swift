import XCTest
@testable import ProceduresFutures

/// A future's state machine on its own: every event on ``FutureState`` and what it returns,
/// driven by hand as a plain value, without threads, locks or futures running. The upstream
/// futures are stand-ins, compared by identity; the delivery loop is in
/// ``CancelVotingTests``.
final class FutureStateTests: XCTestCase {
    private typealias State = FutureState<Int>

    private func pending(upstream: State.Upstream = .none) -> State {
        State(phase: .pending(PendingCallbacks()), upstream: upstream)
    }

    /// A handler whose identity is the value it answers with.
    private func handler(_ tag: Int) -> State.RequestHandler {
        { _ in .complete(.success(tag)) }
    }

    private func tags(_ handlers: [State.RequestHandler]) -> [Int] {
        handlers.map { handler in
            if case .complete(.success(let tag)) = handler([]) { return tag }
            return -1
        }
    }

    // MARK: - Phase: pending, then completed once

    func testAPendingFutureKeepsItsCallbacksInOrderAndHandsThemOutOnCompletion() {
        var state = pending()
        let log = CallLog()
        for name in ["a", "b", "c"] {
            XCTAssertTrue(state.attach({ _ in log.entries.append(name); return CallbackList() }, asVoter: false))
        }
        XCTAssertTrue(log.entries.isEmpty, "nothing runs before completion")
        XCTAssertTrue(state.isPending)
        XCTAssertNil(state.result)

        let completion = state.complete(.success(7), disposal: .release)
        XCTAssertFalse(state.isPending)
        XCTAssertEqual(state.result?.value, 7)
        XCTAssertTrue(log.entries.isEmpty, "the machine runs nothing itself: its caller does, after unlocking")
        guard let completion else { return XCTFail("a pending future completes") }
        CallbackList(completion.callbacks, owner: log).run()
        XCTAssertEqual(log.entries, ["a", "b", "c"])
    }

    func testACompletedFutureIgnoresASecondCompletion() {
        var state = pending()
        XCTAssertNotNil(state.complete(.success(1), disposal: .release))
        XCTAssertNil(state.complete(.failure(FutureError.noSuchElement), disposal: .withdraw))
        XCTAssertNil(state.complete(.cancelled, disposal: .ask))
        XCTAssertEqual(state.result?.value, 1, "the first result stands")
    }

    func testACompletedFutureRefusesCallbacksAndVotersSoTheCallerRunsThemAtOnce() {
        var state = pending()
        _ = state.complete(.cancelled, disposal: .release)
        XCTAssertFalse(state.attach({ _ in CallbackList() }, asVoter: true))
        XCTAssertFalse(state.attach({ _ in CallbackList() }, asVoter: false))
        XCTAssertFalse(state.addVoter())
        XCTAssertEqual(state.liveVoters, 0, "a refused consumer is not counted")
        XCTAssertEqual(state.result?.isCancelled, true)
    }

    func testOnlyConsumersCountAsVotersNotPlainHandlers() {
        var state = pending()
        XCTAssertTrue(state.attach({ _ in CallbackList() }, asVoter: false))
        XCTAssertEqual(state.liveVoters, 0, "a plain handler observes but does not vote")
        XCTAssertTrue(state.attach({ _ in CallbackList() }, asVoter: true))
        XCTAssertTrue(state.addVoter())
        XCTAssertEqual(state.liveVoters, 2)
    }

    func testACompletedFutureIgnoresVotesRequestHandlersAndAbandonment() {
        var state = pending(upstream: .one(StandInTarget()))
        XCTAssertTrue(state.addVoter())
        _ = state.complete(.success(3), disposal: .release)
        XCTAssertNil(state.receive(.ask([])))
        XCTAssertNil(state.addRequestHandler(handler(1)))
        XCTAssertTrue(state.requestHandlers.isEmpty, "a completed future keeps no handler alive")
        XCTAssertNil(state.forcedRequest())
        XCTAssertNil(state.abandon())
        XCTAssertFalse(state.requested)
        XCTAssertEqual(state.result?.value, 3)
    }

    // MARK: - The tree rule: receive(_:)

    func testASharedFutureIsRequestedOnlyOnceEveryConsumerHasAsked() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.addRequestHandler(handler(1)), "no request yet: the handler waits")

        XCTAssertNil(state.receive(.ask([])), "one consumer still wants the result")
        XCTAssertFalse(state.requested)
        guard let request = state.receive(.ask([])) else { return XCTFail("every consumer asked") }
        XCTAssertEqual(tags(request.handlers), [1])
        XCTAssertTrue(state.requested)
        XCTAssertTrue(state.isPending, "a request is only a request: the promise decides")
    }

    func testAWithdrawalLetsTheRemainingConsumersDecide() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.addRequestHandler(handler(1)))
        XCTAssertNil(state.receive(.withdraw))
        XCTAssertEqual(tags(state.receive(.ask([]))?.handlers ?? []), [1], "the only consumer left asked")
    }

    func testWithdrawalsAloneNeverDecideARequest() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.addRequestHandler(handler(1)))
        XCTAssertNil(state.receive(.withdraw))
        XCTAssertNil(state.receive(.withdraw), "nobody asked")
        XCTAssertFalse(state.requested)
    }

    func testTheAskersOptionsAddUpInTheDecidedRequest() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.receive(.ask([.thisFutureOnly])))
        let request = state.receive(.ask([.forceImmediately]))
        XCTAssertEqual(request?.options, [.thisFutureOnly, .forceImmediately])
    }

    func testADecidedRequestIsForwardedToEveryUpstreamOnce() {
        let (a, b) = (StandInTarget(), StandInTarget())
        var state = pending(upstream: .many([a, b]))
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.upstreamVoteLive)
        let request = state.receive(.ask([]))
        XCTAssertTrue(sameFutures(request?.upstream ?? [], [a, b]))
        XCTAssertFalse(state.upstreamVoteLive, "the vote upstream is cast")

        // A consumer that joins later and asks again decides nothing new.
        XCTAssertTrue(state.addVoter())
        let again = state.receive(.ask([]))
        XCTAssertNotNil(again)
        XCTAssertTrue(again?.upstream.isEmpty ?? false, "forwarded once only")
    }

    func testARequestIsNotForwardedWhenEveryAskerSaidThisFutureOnly() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.receive(.ask([.thisFutureOnly])))
        let request = state.receive(.ask([.thisFutureOnly]))
        XCTAssertNotNil(request)
        XCTAssertTrue(request?.upstream.isEmpty ?? false)
        XCTAssertTrue(state.upstreamVoteLive, "its vote upstream is still to be cast, by completion")
    }

    func testOneAskerWithoutThisFutureOnlyIsEnoughToForward() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.receive(.ask([])))
        let request = state.receive(.ask([.thisFutureOnly]))
        XCTAssertTrue(sameFutures(request?.upstream ?? [], [upstream]))
    }

    // MARK: - Request handlers: addRequestHandler(_:), forcedRequest()

    func testARequestHandlerAddedAfterTheDecisionRunsAtOnceWithTheAskedOptions() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.addRequestHandler(handler(1)))
        _ = state.receive(.ask([.thisFutureOnly]))
        let late = state.addRequestHandler(handler(2))
        XCTAssertEqual(tags(late?.handlers ?? []), [2], "only the new handler: the first has run")
        XCTAssertEqual(late?.options, [.thisFutureOnly])
        XCTAssertTrue(late?.upstream.isEmpty ?? false)
    }

    func testEachRequestHandlerIsHandedOutOnce() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.addRequestHandler(handler(1)))
        XCTAssertEqual(tags(state.receive(.ask([]))?.handlers ?? []), [1])
        XCTAssertNotNil(state.addRequestHandler(handler(2)))
        XCTAssertTrue(state.addVoter())
        let again = state.receive(.ask([]))
        XCTAssertTrue(again?.handlers.isEmpty ?? false, "both handlers ran already")
        XCTAssertNil(state.forcedRequest(), "and forcing finds none left to run")
    }

    func testAForcedCancelRunsTheHandlersTheTreeRuleHeldBackWithTheOptionsAskedSoFar() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        XCTAssertTrue(state.addVoter())
        XCTAssertNil(state.addRequestHandler(handler(1)))
        XCTAssertNil(state.addRequestHandler(handler(2)))
        XCTAssertNil(state.receive(.ask([.forceImmediately])), "the tree rule holds the request back")

        let forced = state.forcedRequest()
        XCTAssertEqual(tags(forced?.handlers ?? []), [1, 2])
        XCTAssertEqual(forced?.options, [.forceImmediately])
        XCTAssertTrue(state.requested)
        XCTAssertEqual(tags(state.addRequestHandler(handler(3))?.handlers ?? []), [3], "a later handler runs at once")
    }

    func testAForcedCancelWithoutHandlersStillMarksTheRequestDecided() {
        var state = pending()
        XCTAssertNil(state.forcedRequest())
        XCTAssertTrue(state.requested)
        XCTAssertEqual(tags(state.addRequestHandler(handler(1))?.handlers ?? []), [1])
    }

    // MARK: - Disposal: what complete(_:disposal:) tells the upstream

    func testAFutureWhoseUpstreamCompletedReleasesItWithoutAVote() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        let completion = state.complete(.success(1), disposal: .release)
        XCTAssertNil(completion?.vote)
        XCTAssertTrue(completion?.voteTargets.isEmpty ?? false)
        XCTAssertTrue(sameFutures(completion?.releasedUpstream.targets ?? [], [upstream]), "let go after unlocking")
        XCTAssertTrue(state.upstream.targets.isEmpty)
        XCTAssertFalse(state.upstreamVoteLive)
    }

    func testACompletingFutureWithdrawsFromEveryUpstreamItStillVotesOn() {
        let (a, b) = (StandInTarget(), StandInTarget())
        var state = pending(upstream: .many([a, b]))
        let completion = state.complete(.failure(FutureError.missingValue), disposal: .withdraw)
        XCTAssertEqual(voteName(completion?.vote), "withdraw")
        XCTAssertTrue(sameFutures(completion?.voteTargets ?? [], [a, b]))
    }

    func testAFutureForcedToCompleteAsCancelledAsksItsUpstreamToCancel() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        let completion = state.complete(.cancelled, disposal: .ask)
        XCTAssertEqual(voteName(completion?.vote), "ask([])", "a plain ask: options stay where they were given")
        XCTAssertTrue(sameFutures(completion?.voteTargets ?? [], [upstream]))
    }

    func testAFutureWhoseRequestWasForwardedSendsNoSecondVoteOnCompletion() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        XCTAssertTrue(state.addVoter())
        XCTAssertFalse(state.receive(.ask([]))?.upstream.isEmpty ?? true)
        let completion = state.complete(.cancelled, disposal: .withdraw)
        XCTAssertNil(completion?.vote, "its vote was the forwarded ask")
        XCTAssertTrue(sameFutures(completion?.releasedUpstream.targets ?? [], [upstream]))
    }

    func testAFutureWithNoUpstreamHasNoVoteToSend() {
        var state = pending(upstream: .none)
        XCTAssertFalse(state.upstreamVoteLive)
        let completion = state.complete(.cancelled, disposal: .ask)
        XCTAssertNil(completion?.vote)
        XCTAssertTrue(completion?.voteTargets.isEmpty ?? false)
    }

    func testCompletionHandsTheRequestHandlersOutToBeReleasedAfterUnlocking() {
        var state = pending()
        XCTAssertNil(state.addRequestHandler(handler(1)))
        XCTAssertNil(state.addRequestHandler(handler(2)))
        let completion = state.complete(.success(0), disposal: .release)
        XCTAssertEqual(tags(completion?.releasedHandlers ?? []), [1, 2])
        XCTAssertTrue(state.requestHandlers.isEmpty)
    }

    // MARK: - abandon()

    func testAnAbandonedFutureOwesItsCallbacksToAGhostAndAWithdrawalUpstream() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        let log = CallLog()
        XCTAssertTrue(state.attach({ _ in log.entries.append("ran"); return CallbackList() }, asVoter: false))
        guard let abandonment = state.abandon() else { return XCTFail("a pending future is abandoned") }
        XCTAssertFalse(state.isPending)
        XCTAssertTrue(abandonment.withdraw)
        XCTAssertTrue(sameFutures(abandonment.upstream, [upstream]))
        XCTAssertTrue(state.upstream.targets.isEmpty)
        XCTAssertFalse(state.upstreamVoteLive)
        CallbackList(abandonment.callbacks, owner: log).run()
        XCTAssertEqual(log.entries, ["ran"], "the user's side effects still run")
    }

    func testAnAbandonedFutureWhoseRequestWasForwardedOwesNoWithdrawal() {
        let upstream = StandInTarget()
        var state = pending(upstream: .one(upstream))
        XCTAssertTrue(state.addVoter())
        _ = state.receive(.ask([]))
        XCTAssertEqual(state.abandon()?.withdraw, false)
    }

    // MARK: - follow(_:)

    func testFollowingANewUpstreamReturnsTheOldOneToLetGo() {
        let (old, new) = (StandInTarget(), StandInTarget())
        var state = pending(upstream: .one(old))
        let (vote, released) = state.follow(.one(new))
        XCTAssertNil(vote, "nobody asked: nothing to tell the new upstream")
        XCTAssertTrue(sameFutures(released.targets, [old]))
        XCTAssertTrue(sameFutures(state.upstream.targets, [new]))
        XCTAssertTrue(state.upstreamVoteLive)
        XCTAssertTrue(sameFutures(state.complete(.success(1), disposal: .withdraw)?.voteTargets ?? [], [new]))
    }

    func testFollowingAfterAForwardedRequestAsksTheNewUpstreamAtOnce() {
        let (old, new) = (StandInTarget(), StandInTarget())
        var state = pending(upstream: .one(old))
        XCTAssertTrue(state.addVoter())
        _ = state.receive(.ask([.forceImmediately]))
        let (vote, released) = state.follow(.one(new))
        XCTAssertEqual(voteName(vote), "ask([])", "the request reaches whichever future now runs")
        XCTAssertTrue(sameFutures(released.targets, [old]))
        XCTAssertFalse(state.upstreamVoteLive, "that ask was its vote")
    }

    func testFollowingAfterARequestForThisFutureOnlyAsksNothing() {
        var state = pending()
        XCTAssertTrue(state.addVoter())
        _ = state.receive(.ask([.thisFutureOnly]))
        let (vote, _) = state.follow(.one(StandInTarget()))
        XCTAssertNil(vote)
        XCTAssertTrue(state.upstreamVoteLive)
    }

    func testACompletedFutureWithdrawsAtOnceFromAnUpstreamItWouldFollow() {
        var state = pending()
        _ = state.complete(.success(1), disposal: .release)
        let (vote, released) = state.follow(.one(StandInTarget()))
        XCTAssertEqual(voteName(vote), "withdraw")
        XCTAssertTrue(released.targets.isEmpty)
        XCTAssertTrue(state.upstream.targets.isEmpty, "a completed future consumes nothing")
    }
}

/// Names a vote, for assertions (`CancelVote` is not `Equatable`).
func voteName(_ vote: CancelVote?) -> String {
    switch vote {
    case nil: return "nil"
    case .withdraw: return "withdraw"
    case .ask(let options): return "ask(\(options.rawValue == 0 ? "[]" : String(options.rawValue)))"
    }
}

/// Whether two lists hold the same futures, in order.
func sameFutures(_ lhs: [any CancelVoteTarget], _ rhs: [any CancelVoteTarget]) -> Bool {
    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0 === $1 }
}

/// What callbacks did, in order. Only touched on the test's own thread.
private final class CallLog {
    var entries: [String] = []
}

/// An upstream future reduced to its identity: the machine only keeps and hands it back.
private final class StandInTarget: CancelVoteTarget {
    func addCancelVoter() -> Bool { false }
    func attachConsumer(_ callback: @escaping CallbackList.Callback) -> Bool { false }
    func receiveCancelVote(_ vote: CancelVote) -> [any CancelVoteTarget] { [] }
    func forceCancel(thisFutureOnly: Bool) {}
}
