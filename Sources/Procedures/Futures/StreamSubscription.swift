/// One subscriber of a ``FutureStream``: its context and handlers, until unsubscribed.
final class StreamSubscription<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `onElement` and `onFinish` are only touched under this object's stripe of
    // `StripedLock`; `context` and `immediate` are immutable.
    typealias ElementHandler = @Sendable (FutureResult<Value>) -> Void
    typealias FinishHandler = @Sendable () -> Void

    private let context: any ExecutionContext
    private let immediate: Bool
    private var onElement: ElementHandler?
    private var onFinish: FinishHandler?

    init(context: any ExecutionContext, onElement: @escaping ElementHandler, onFinish: FinishHandler? = nil) {
        self.context = context
        immediate = context.executesImmediately
        self.onElement = onElement
        self.onFinish = onFinish
    }

    var isActive: Bool { StripedLock.withLock(for: self) { onElement != nil } }

    func deliver(_ result: FutureResult<Value>) {
        guard let handler = StripedLock.withLock(for: self, { onElement }) else { return }
        if immediate {
            handler(result)
        } else {
            context.execute { [self] in
                // Unsubscribed meanwhile: stop delivering.
                guard isActive else { return }
                handler(result)
            }
        }
    }

    func finish() {
        let handlers = StripedLock.withLock(for: self) { () -> (ElementHandler?, FinishHandler?) in
            defer { onElement = nil; onFinish = nil }
            return (onElement, onFinish)
        }
        guard let finish = handlers.1 else { return }
        if immediate { finish() } else { context.execute(finish) }
    }

    /// Stops delivery; handlers are released after the lock is dropped.
    func cancel() {
        _ = StripedLock.withLock(for: self) { () -> (ElementHandler?, FinishHandler?) in
            defer { onElement = nil; onFinish = nil }
            return (onElement, onFinish)
        }
    }
}
