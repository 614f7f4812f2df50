import ProceduresSupport
/// How callbacks registered on an upstream future reach a consumer future (a derived future,
/// the target of `sequence`/`zip`/`firstCompleted`, a future following another) without
/// keeping it alive.
///
/// Why: under the tree rule a consumer that is released without asking withdraws its vote.
/// If the upstream's callback list held the consumer strongly, a derived future the user
/// dropped would live, and vote, until the upstream completed. So callbacks hold this anchor,
/// which holds the consumer weakly; the consumer's deinit withdraws the vote (see
/// `Future.deinit`).
///
/// What was registered on a released consumer still runs: its deinit moves its own pending
/// callbacks (handlers, closures of futures derived from it) to a *ghost*, a stand-in future
/// nobody else references, and settles the anchor with it. The upstream's callback then runs
/// the user's closure and completes the ghost instead, so `andThen`/`map`/`onSuccess` side
/// effects are not lost; only the completion of the released future itself is skipped.
///
/// One race is left to settle: a weak load fails as soon as the consumer's last reference
/// goes, slightly before its deinit settles the anchor. A callback that finds the consumer
/// gone and the anchor unsettled parks its work here; the deinit runs it right after settling
/// (on the releasing thread, outside every lock). If the consumer had completed instead, its
/// deinit never settles and parked work is dropped with the anchor: a completed consumer's
/// closures must not run again.
///
/// Not final: `derive` subclasses it to carry its closures, so that its upstream callback
/// captures this one object (Swift then uses it as the closure's context: no allocation).
@usableFromInline class ConsumerAnchor<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `fate` is only touched under this object's stripe of `StripedLock` (or in
    // deinit); `target` is a weak reference set once, and weak loads are atomic.
    @usableFromInline typealias Work = (Future<Value>?) -> CallbackList

    @usableFromInline enum Fate {
        /// Not released while pending (or its deinit has not settled yet): work waits here.
        case unsettled([Work])
        /// Released while pending; `ghost` holds what was registered on it (`nil`: nothing).
        case released(ghost: Future<Value>?)
    }

    /// The consumer, while anything else holds it.
    @usableFromInline weak let target: Future<Value>?
    @usableFromInline var fate: Fate = .unsettled([])

    @inlinable init(_ target: Future<Value>) {
        self.target = target
    }

    /// For a callback that found ``target`` gone: runs `work` with the ghost (or `nil`) if the
    /// consumer was released pending, or parks it for the consumer's deinit. Returns the
    /// callbacks made ready, for the caller's loop.
    @inlinable final func afterRelease(_ work: @escaping Work) -> CallbackList {
        let settled: Future<Value>?? = StripedLock.withLock(for: self) {
            switch fate {
            case .unsettled(var parked):
                fate = .unsettled([])  // keep the array uniquely referenced while it grows
                parked.append(work)
                fate = .unsettled(parked)
                return .none
            case .released(let ghost):
                return .some(ghost)
            }
        }
        guard case .some(let ghost) = settled else { return CallbackList() }
        return work(ghost)
    }

    /// Runs `body` with the consumer, or with the ghost of a released one; nothing if it was
    /// released with nothing registered on it. For consumers that run no user code.
    @inlinable final func withConsumer(_ body: @escaping (Future<Value>) -> CallbackList) -> CallbackList {
        if let target { return body(target) }
        return afterRelease { $0.map(body) ?? CallbackList() }
    }

    /// Called once, by the consumer's deinit when it was released pending. Returns the parked
    /// work, which the caller runs with the same `ghost` after this returns.
    final func settle(ghost: Future<Value>?) -> [Work] {
        StripedLock.withLock(for: self) {
            guard case .unsettled(let parked) = fate else { return [] }
            fate = .released(ghost: ghost)
            return parked
        }
    }

    deinit {
        // The ghost may head a long chain of ghosts (a whole chain released at once): release
        // it from a loop, not recursively. `takeGhost` returns it so that no other local
        // reference outlives the hand-over.
        var ghost = takeGhost()
        DeferredRelease.release(&ghost)
    }

    private final func takeGhost() -> AnyObject? {
        guard case .released(let ghost?) = fate else { return nil }
        fate = .unsettled([])
        return ghost
    }
}
