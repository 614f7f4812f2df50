import ProceduresSupport
/// The worker's side of a cancellation: something to poll or observe, never to trigger.
///
/// A token is a tiny one-shot future of a `Bool`: it starts *pending* and completes once,
/// either *cancelled* (`true`, its ``CancellationRequest`` called `cancel()`) or *not
/// cancelled* (`false`, the request went away without cancelling, so it never can be).
///
/// Threading: handlers run synchronously on the thread that completes the token (the one
/// calling `cancel()`, or the one releasing the request), after the token's lock has been
/// released, in registration order. A handler registered on a completed token runs at once
/// on the registering thread. Keep handlers short; hop to a queue yourself for long work.
/// Every handler is released when the token completes.
///
/// Cost: registering or completing takes one lock; handlers are kept in a dictionary so that
/// futures can unregister theirs in O(1) when they no longer need them.
public final class CancellationToken: Sendable {
    enum Handler {
        case cancelled(@Sendable () -> Void)
        case completed(@Sendable (Bool) -> Void)
    }

    struct State {
        /// `nil` while pending; then `true` for cancelled, `false` for never cancelled.
        var outcome: Bool?
        var handlers: [Int: Handler] = [:]
        var nextID = 0
    }

    private let state: LockedValue<State>

    init(outcome: Bool? = nil) {
        state = LockedValue(State(outcome: outcome))
    }

    /// A token that is never cancelled: already completed as *not cancelled*.
    ///
    /// `isCancelled` is `false`, `isCompleted` is `true`, `onComplete` handlers run at once
    /// with `false`, and `onCancel` / `register(_:)` do nothing.
    public static let none = CancellationToken(outcome: false)

    /// Whether the token has been cancelled. Cheap enough to poll in a loop (one lock).
    public var isCancelled: Bool { state.withLock { $0.outcome == true } }

    /// Whether the token has completed, cancelled or not. Once `true` it never changes.
    public var isCompleted: Bool { state.withLock { $0.outcome != nil } }

    /// Runs `body` once if and when the token is cancelled; never if it completes otherwise.
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        if addHandler(.cancelled(body)) == nil, isCancelled { body() }
    }

    /// Runs `body` once when the token completes, with `true` if it was cancelled.
    public func onComplete(_ body: @escaping @Sendable (Bool) -> Void) {
        if addHandler(.completed(body)) == nil { body(isCancelled) }
    }

    /// Calls `cancelable.cancel()` once if the token is cancelled while `cancelable` is alive.
    ///
    /// The object is held weakly: registering never extends its life, and an object that has
    /// gone away is simply skipped. Nothing is called if the token completes as not cancelled.
    public func register(_ cancelable: any Cancelable) {
        onCancel { [weak cancelable] in cancelable?.cancel() }
    }

    // MARK: - Internal plumbing used by requests, combinators and futures

    /// Stores a handler and returns its identifier, or returns `nil` (storing nothing) when the
    /// token has already completed; the caller then decides what to run.
    func addHandler(_ handler: Handler) -> Int? {
        state.withLock { state -> Int? in
            guard state.outcome == nil else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            return id
        }
    }

    /// How many handlers the token holds (for tests: handlers must not accumulate).
    var registeredHandlerCount: Int { state.withLock { $0.handlers.count } }

    /// Forgets a handler that is no longer wanted (for example, its future completed first).
    @usableFromInline func removeHandler(_ id: Int) {
        // The removed closure is returned so it is released after the lock is dropped.
        _ = state.withLock { $0.handlers.removeValue(forKey: id) }
    }

    /// Registers `body` to run on cancellation; runs it at once if the token is already
    /// cancelled. Returns the identifier to unregister with, or `nil` if nothing was stored.
    @usableFromInline func observeCancellation(_ body: @escaping @Sendable () -> Void) -> Int? {
        if let id = addHandler(.cancelled(body)) { return id }
        if isCancelled { body() }
        return nil
    }

    /// Completes the token; the first call wins. Handlers run after the lock is released.
    @discardableResult
    func complete(cancelled: Bool) -> Bool {
        let handlers = state.withLock { state -> [Int: Handler]? in
            guard state.outcome == nil else { return nil }
            state.outcome = cancelled
            defer { state.handlers = [:] }
            return state.handlers
        }
        guard let handlers else { return false }
        assertNoLibraryLockHeld("a cancellation token's handlers")
        for id in handlers.keys.sorted() {
            switch handlers[id]! {
            case .cancelled(let body): if cancelled { body() }
            case .completed(let body): body(cancelled)
            }
        }
        return true
    }
}
