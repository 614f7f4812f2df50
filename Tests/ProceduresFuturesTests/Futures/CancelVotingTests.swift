import XCTest
@testable import ProceduresFutures

/// ``CancelVoting/deliver(_:to:)`` over futures reduced to their state machines: each target is
/// a ``FutureState`` behind a lock and nothing else, so what a vote decides and where the
/// request goes next is the machines' and the loop's alone. One thread, no futures running.
final class CancelVotingTests: XCTestCase {
    /// A future `count` stages long, head first: each stage consumes the one before it, and the
    /// last has one consumer of its own (a token, say).
    private func chain(_ count: Int) -> [MachineTarget] {
        var stages = [MachineTarget(upstream: [])]
        for _ in 1 ..< count { stages.append(MachineTarget(upstream: [stages[stages.count - 1]])) }
        XCTAssertTrue(stages[stages.count - 1].addCancelVoter())
        return stages
    }

    /// Releases a chain tail first, so no stage's deinit releases the rest recursively.
    private func release(_ stages: inout [MachineTarget]) {
        while stages.popLast() != nil {}
    }

    func testADecidedRequestClimbsTheWholeChainAsPlainAsks() {
        var stages = chain(3)
        CancelVoting.deliver(.ask([.forceImmediately]), to: [stages[2]])
        XCTAssertEqual(stages[2].votes, ["ask(2)"], "the options apply where they were given")
        XCTAssertEqual(stages[1].votes, ["ask([])"])
        XCTAssertEqual(stages[0].votes, ["ask([])"])
        XCTAssertTrue(stages.allSatisfy(\.requested))
        release(&stages)
    }

    func testARequestForThisFutureOnlyStopsWhereItWasGiven() {
        var stages = chain(3)
        CancelVoting.deliver(.ask([.thisFutureOnly]), to: [stages[2]])
        XCTAssertTrue(stages[2].requested)
        XCTAssertEqual(stages[1].votes, [], "nothing forwarded")
        XCTAssertFalse(stages[1].requested)
        XCTAssertFalse(stages[0].requested)
        release(&stages)
    }

    func testASharedFutureOnTheChainIsAskedOnlyOnceItsOtherConsumerAsks() {
        let head = MachineTarget(upstream: [])
        let left = MachineTarget(upstream: [head])
        let right = MachineTarget(upstream: [head])
        XCTAssertTrue(left.addCancelVoter())
        XCTAssertTrue(right.addCancelVoter())

        CancelVoting.deliver(.ask([]), to: [left])
        XCTAssertTrue(left.requested)
        XCTAssertEqual(head.votes, ["ask([])"], "left's vote arrived")
        XCTAssertFalse(head.requested, "right still wants the result")

        CancelVoting.deliver(.ask([]), to: [right])
        XCTAssertTrue(head.requested)
    }

    func testAWithdrawalIsCountedButForwardsNothing() {
        var stages = chain(2)
        CancelVoting.deliver(.withdraw, to: [stages[1]])
        XCTAssertEqual(stages[1].votes, ["withdraw"])
        XCTAssertFalse(stages[1].requested)
        XCTAssertEqual(stages[0].votes, [])
        release(&stages)
    }

    func testAVoteForSeveralFuturesReachesEachAndTheirUpstreams() {
        var first = chain(2)
        var second = chain(2)
        CancelVoting.deliver(.ask([]), to: [first[1], second[1]])
        XCTAssertTrue((first + second).allSatisfy(\.requested))
        release(&first)
        release(&second)
    }

    func testAFutureForcedToCancelAsksItsUpstreamOrWithdrawsWhenThisFutureOnly() {
        let head = MachineTarget(upstream: [])
        let forced = MachineTarget(upstream: [head])
        let narrow = MachineTarget(upstream: [head])
        forced.forceCancel(thisFutureOnly: false)
        narrow.forceCancel(thisFutureOnly: true)
        XCTAssertEqual(head.votes, ["ask([])", "withdraw"])
        XCTAssertTrue(head.requested, "the forced ask decides: the other consumer withdrew")
    }

    func testALongChainIsAskedToItsHeadInOneLoop() {
        var stages = chain(20_000)
        CancelVoting.deliver(.ask([]), to: [stages[stages.count - 1]])
        XCTAssertTrue(stages[0].requested, "a recursion this deep would have overflowed the stack first")
        release(&stages)
    }
}

/// A future reduced to its state machine, under a lock as a future keeps it, recording the
/// votes it receives.
private final class MachineTarget: CancelVoteTarget {
    private let state: LockedBox<FutureState<Int>>
    private let received = LockedBox<[String]>([])

    init(upstream: [MachineTarget]) {
        for target in upstream { _ = target.addCancelVoter() }
        let links: FutureState<Int>.Upstream =
            switch upstream.count {
            case 0: .none
            case 1: .one(upstream[0])
            default: .many(upstream)
            }
        state = LockedBox(FutureState(phase: .pending(PendingCallbacks()), upstream: links))
    }

    var votes: [String] { received.value }
    var requested: Bool { state.mutate { $0.requested } }

    func addCancelVoter() -> Bool { state.mutate { $0.addVoter() } }

    func attachConsumer(_ callback: @escaping CallbackList.Callback) -> Bool {
        state.mutate { $0.attach(callback, asVoter: true) }
    }

    func receiveCancelVote(_ vote: CancelVote) -> [any CancelVoteTarget] {
        received.mutate { $0.append(voteName(vote)) }
        return state.mutate { $0.receive(vote) }?.upstream ?? []
    }

    func forceCancel(thisFutureOnly: Bool) {
        let completion = state.mutate { state in
            _ = state.forcedRequest()
            return state.complete(.cancelled, disposal: thisFutureOnly ? .withdraw : .ask)
        }
        if let completion, let vote = completion.vote { CancelVoting.deliver(vote, to: completion.voteTargets) }
    }
}
