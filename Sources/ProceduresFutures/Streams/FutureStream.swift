import ProceduresSupport
/// A sequence of results over time: the read side of a ``StreamPromise``.
///
/// Each element is a ``FutureResult`` (a value, an error or a cancellation); the stream may
/// end with `finish()`. It keeps the last `capacity` elements and replays them, in order, to
/// every late subscriber before any new element. Use it where a callback fires repeatedly
/// (location updates, sensor data, messages).
///
/// ```swift
/// let updates = StreamPromise<Int>(capacity: 10)
/// updates.stream.map { $0 * 2 }.onSuccess { print($0) }
/// updates.succeed(1)
/// ```
///
/// **Threading.** Handlers run on their `context:` (default ``DefaultExecutionContext/current``),
/// never under a lock. Deliveries of one stream are serialised: with the immediate context (or
/// a serial queue) each subscriber sees elements in the order they were added, even when
/// producers race. With a concurrent queue, handlers may overlap.
///
/// **Unsubscribing.** Pass a `cancelToken:`; once it is cancelled no further element is
/// delivered to that handler (elements already delivered stay delivered) and a derived stream
/// finishes.
public final class FutureStream<Value: Sendable>: StreamDrainable, @unchecked Sendable {
    // @unchecked: `state` is only touched inside `withLock`, under this object's stripe of
    // `StripedLock`; `capacity` is immutable.
    private enum Job {
        case element(FutureResult<Value>, [StreamSubscription<Value>])
        case replay([FutureResult<Value>], StreamSubscription<Value>, finished: Bool)
        case finish([StreamSubscription<Value>])
    }

    private struct State {
        var buffer: ReplayBuffer<FutureResult<Value>>
        var subscribers: [StreamSubscription<Value>] = []
        var finished = false
        var jobs: [Job] = []
        var delivering = false
    }

    /// How many past elements are kept and replayed to late subscribers.
    public let capacity: Int
    private var state: State

    init(capacity: Int) {
        self.capacity = capacity
        state = State(buffer: ReplayBuffer(capacity: capacity))
    }

    private func withLock<R>(_ body: (inout State) -> R) -> R {
        StripedLock.withLock(for: self) { body(&state) }
    }

    /// Whether the stream has ended (no further element will arrive).
    public var isFinished: Bool { withLock { $0.finished } }

    /// The elements currently kept for replay, oldest first.
    public var bufferedResults: [FutureResult<Value>] { withLock { $0.buffer.elements } }

    // MARK: - Producing (through StreamPromise)

    @discardableResult
    func add(_ result: FutureResult<Value>) -> Bool {
        // Elements the bounded buffer drops come back out, to be released after unlocking.
        let (accepted, queued, dropped) = withLock { state -> (Bool, Bool, [FutureResult<Value>]) in
            guard !state.finished else { return (false, false, []) }
            let dropped = state.buffer.append(result)
            guard !state.subscribers.isEmpty else { return (true, false, dropped) }
            state.jobs.append(.element(result, state.subscribers))
            return (true, true, dropped)
        }
        _ = dropped
        if queued { drain() }
        return accepted
    }

    @discardableResult
    func finish() -> Bool {
        let finished = withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            state.jobs.append(.finish(state.subscribers))
            state.subscribers = []
            return true
        }
        if finished { drain() }
        return finished
    }

    // MARK: - Subscribing

    @discardableResult
    func subscribe(_ subscription: StreamSubscription<Value>, cancelToken: CancellationToken?) -> StreamSubscription<Value> {
        withLock { state in
            if !state.finished { state.subscribers.append(subscription) }
            state.jobs.append(.replay(state.buffer.elements, subscription, finished: state.finished))
        }
        if let cancelToken,
            let id = cancelToken.observeCancellation({ [weak self] in
                subscription.cancel()
                self?.unsubscribe(subscription)
            })
        {
            // Removed from the token once the subscription ends (finished or cancelled).
            subscription.observed(by: cancelToken, handlerID: id)
        }
        drain()
        return subscription
    }

    func unsubscribe(_ subscription: StreamSubscription<Value>) {
        let removed = withLock { state -> StreamSubscription<Value>? in
            guard let index = state.subscribers.firstIndex(where: { $0 === subscription }) else { return nil }
            return state.subscribers.remove(at: index)
        }
        _ = removed  // released after unlocking
    }

    /// Runs queued deliveries, through this thread's ``StreamTrampoline`` so that a chain of
    /// derived streams is driven from one loop instead of recursively.
    private func drain() {
        StreamTrampoline.drain(self)
    }

    /// Runs queued deliveries unless another thread is already doing so; that thread then
    /// picks ours up too, which keeps deliveries in order and re-entrant producers iterative.
    func drainNow() {
        let mine = withLock { state -> Bool in
            guard !state.delivering, !state.jobs.isEmpty else { return false }
            state.delivering = true
            return true
        }
        guard mine else { return }
        while let jobs = withLock({ state -> [Job]? in
            guard !state.jobs.isEmpty else {
                state.delivering = false
                return nil
            }
            defer { state.jobs = [] }
            return state.jobs
        }) {
            for job in jobs {
                switch job {
                case .element(let result, let subscribers):
                    for subscriber in subscribers { subscriber.deliver(result) }
                case .replay(let results, let subscriber, let finished):
                    for result in results { subscriber.deliver(result) }
                    if finished { subscriber.finish() }
                case .finish(let subscribers):
                    for subscriber in subscribers { subscriber.finish() }
                }
            }
        }
    }

    // MARK: - Handlers

    /// Runs `body` for every element, replayed ones first. See the type's threading notes.
    public func onComplete(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (FutureResult<Value>) -> Void
    ) {
        if let cancelToken, cancelToken.isCancelled { return }
        let subscription = StreamSubscription(context: context ?? DefaultExecutionContext.current, onElement: body)
        subscribe(subscription, cancelToken: cancelToken)
    }

    /// Runs `body` for every successful element.
    public func onSuccess(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) {
        onComplete(context: context, cancelToken: cancelToken) { if case .success(let value) = $0 { body(value) } }
    }

    /// Runs `body` for every failed element.
    public func onFailure(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ body: @escaping @Sendable (any Error) -> Void
    ) {
        onComplete(context: context, cancelToken: cancelToken) { if case .failure(let error) = $0 { body(error) } }
    }

    /// Runs `body` once when the stream finishes (at once if it has finished already).
    public func onFinish(context: (any ExecutionContext)? = nil, _ body: @escaping @Sendable () -> Void) {
        let subscription = StreamSubscription<Value>(
            context: context ?? DefaultExecutionContext.current, onElement: { _ in }, onFinish: body)
        subscribe(subscription, cancelToken: nil)
    }
}
