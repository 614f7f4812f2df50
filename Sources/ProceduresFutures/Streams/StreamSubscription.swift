import ProceduresSupport
/// One subscriber of a ``FutureStream``: its context and handlers, until finished or
/// unsubscribed.
///
/// On a context that does not run work inline, deliveries are dispatched and run later. The
/// end of the stream must still come after them: `finish()` only marks the subscription as
/// finishing while deliveries are outstanding, and the last of them runs the finish handler
/// (on the context, after its own element). Cancelling (unsubscribing) drops outstanding
/// deliveries instead.
final class StreamSubscription<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every `var` (the handlers included: they are dropped when it ends) is only
    // touched under this object's stripe of `StripedLock`; `context` and `immediate` are
    // immutable.
    typealias ElementHandler = @Sendable (FutureResult<Value>) -> Void
    typealias FinishHandler = @Sendable () -> Void

    private let context: any ExecutionContext
    private let immediate: Bool
    private var onElement: ElementHandler?
    private var onFinish: FinishHandler?
    /// Runs once on the cancelling thread when the subscription is cancelled while active
    /// (a derived stream finishes its result there).
    private var onCancel: FinishHandler?
    /// Deliveries dispatched to `context` that have not run yet.
    private var outstanding = 0
    /// `finish()` was called while deliveries were outstanding: the last one finishes.
    private var finishPending = false
    /// The cancel token observing this subscription, and its handler there, removed once the
    /// subscription ends so that a long-lived token does not accumulate them.
    private var token: CancellationToken?
    private var tokenHandlerID: Int?
    private var ended = false

    init(
        context: any ExecutionContext,
        onElement: @escaping ElementHandler,
        onFinish: FinishHandler? = nil,
        onCancel: FinishHandler? = nil
    ) {
        self.context = context
        immediate = context.executesImmediately
        self.onElement = onElement
        self.onFinish = onFinish
        self.onCancel = onCancel
    }

    var isActive: Bool { StripedLock.withLock(for: self) { onElement != nil && !finishPending } }

    /// Remembers the token handler to remove when the subscription ends (at once if it has).
    func observed(by token: CancellationToken, handlerID: Int) {
        let endedAlready = StripedLock.withLock(for: self) { () -> Bool in
            guard !ended else { return true }
            self.token = token
            tokenHandlerID = handlerID
            return false
        }
        if endedAlready { token.removeHandler(handlerID) }
    }

    func deliver(_ result: FutureResult<Value>) {
        guard let handler = StripedLock.withLock(for: self, { () -> ElementHandler? in
            guard let onElement, !finishPending else { return nil }
            if !immediate { outstanding += 1 }
            return onElement
        }) else { return }
        if immediate {
            assertNoLibraryLockHeld("a stream subscription's element handler")
            handler(result)
        } else {
            context.execute { [self] in
                // Unsubscribed meanwhile: stop delivering.
                let active = StripedLock.withLock(for: self) { onElement != nil }
                if active {
                    assertNoLibraryLockHeld("a stream subscription's element handler")
                    handler(result)
                }
                delivered()
            }
        }
    }

    /// A dispatched delivery has run (or was skipped): the last one runs a pending finish.
    private func delivered() {
        var finishing: (ElementHandler?, FinishHandler?, FinishHandler?) = (nil, nil, nil)
        let ends = StripedLock.withLock(for: self) { () -> Bool in
            outstanding -= 1
            guard outstanding == 0, finishPending else { return false }
            finishPending = false
            finishing = takeHandlers()
            return true
        }
        guard ends else { return }
        endObservation()
        finishing.1?()  // already on the context, after the last element
    }

    func finish() {
        var taken: (ElementHandler?, FinishHandler?, FinishHandler?) = (nil, nil, nil)
        let now = StripedLock.withLock(for: self) { () -> Bool in
            guard onElement != nil, !finishPending else { return false }
            if outstanding > 0 {
                finishPending = true
                return false
            }
            taken = takeHandlers()
            return true
        }
        guard now else { return }
        endObservation()
        guard let finish = taken.1 else { return }
        if immediate { finish() } else { context.execute(finish) }
    }

    /// Stops delivery, dropping outstanding deliveries and a pending finish, and runs the
    /// cancel hook. Handlers are released after the lock is dropped.
    func cancel() {
        var taken: (ElementHandler?, FinishHandler?, FinishHandler?) = (nil, nil, nil)
        let wasActive = StripedLock.withLock(for: self) { () -> Bool in
            guard onElement != nil else { return false }
            finishPending = false
            taken = takeHandlers()
            return true
        }
        guard wasActive else { return }
        endObservation()
        taken.2?()
    }

    /// Under the lock: ends the subscription and hands its handlers out to release (or run)
    /// after unlocking.
    private func takeHandlers() -> (ElementHandler?, FinishHandler?, FinishHandler?) {
        defer { onElement = nil; onFinish = nil; onCancel = nil; ended = true }
        return (onElement, onFinish, onCancel)
    }

    /// Removes this subscription's handler from its cancel token, if any.
    private func endObservation() {
        let observation = StripedLock.withLock(for: self) { () -> (CancellationToken, Int)? in
            guard let token, let tokenHandlerID else { return nil }
            self.token = nil
            self.tokenHandlerID = nil
            return (token, tokenHandlerID)
        }
        if let (token, id) = observation { token.removeHandler(id) }
    }
}
