import Foundation

/// A procedure is something a cancellation token can cancel.
extension Procedure: Cancelable {}

extension OutputProcedure {
    /// A future of this procedure's output: success with the output, failure with its error
    /// (several errors arrive as one ``ProcedureError/multiple(errors:)``), cancelled when the
    /// procedure was cancelled. A procedure that succeeded without an output fails with
    /// ``ProcedureError/noOutput(name:)``.
    ///
    /// While anyone holds it, every call returns the same future. It is derived from the
    /// procedure's completion future (the `Future<Void>` `future`), so all the consumers of
    /// either count under the tree rule: a cancel request reaches the procedure, and cancels
    /// it, once every consumer has asked. The future does not start the procedure: add it to
    /// a queue, or use `queue.future(_:)`, which does both. A cancel request for a
    /// procedure that is not on any queue completes the future as cancelled at once (nothing
    /// would ever start it). Asked of a finished procedure, it completes at once.
    public var future: Future<Output> {
        if let existing = lock.withLock({ state.outputFuture }) as? Future<Output> { return existing }
        let derived = completion.map(context: .immediate) { [self] _ -> Output in
            guard let output else { throw ProcedureError.noOutput(name: displayName) }
            return output
        }
        return lock.withLock {
            // Two threads may race to make it: keep whichever was stored first.
            if let existing = state.outputFuture as? Future<Output> { return existing }
            state.outputFuture = derived
            return derived
        }
    }
}

extension Procedure {
    /// A future that completes when the procedure finishes: success, failure with its error
    /// (several as one ``ProcedureError/multiple(errors:)``), or cancelled. Output procedures
    /// also offer a future of their output under the same name; this is the one to use for
    /// procedures without an output (groups, say), or with a type annotation:
    /// `let done: Future<Void> = procedure.future`.
    @_disfavoredOverload
    public var future: Future<Void> { completion }

    /// The one completion future of this procedure, made on first use.
    var completion: Future<Void> {
        let promise = Promise<Void>()
        let (future, isNew) = lock.withLock { () -> (Future<Void>, Bool) in
            if let existing = state.completionFuture as? Future<Void> { return (existing, false) }
            state.completionFuture = promise.future
            return (promise.future, true)
        }
        guard isNew else { return future }
        // Finished already: its errors and cancellation are final, so complete at once rather
        // than through a late did-finish observer (which may run just after this returns).
        let finished = lock.withLock { () -> (cancelled: Bool, errors: [any Error])? in
            state.phase == .finished ? (state.cancellation == .cancelled, state.errors) : nil
        }
        if let finished {
            promise.complete(Procedure.outcome(cancelled: finished.cancelled, errors: finished.errors) ?? .success(()))
            return future
        }
        promise.onRequestCancel { [weak self] _ in
            guard let self else { return .complete(.cancelled) }
            let enqueued = isEnqueued
            cancel()
            // On a queue, the procedure decides when it is done and its did-finish completes
            // the promise. On none, nothing would ever start it: complete now.
            return enqueued ? .continue : .complete(.cancelled)
        }
        addDidFinishBlockObserver { procedure, errors in
            promise.complete(Procedure.outcome(cancelled: procedure.isCancelled, errors: errors) ?? .success(()))
        }
        return future
    }

    /// A finished procedure's outcome as a future result, or nil when it succeeded. Cancelled
    /// wins over errors: a future's consumers see `.cancelled` (compare `ProcedureQueue.run`,
    /// which throws the error that says why).
    static func outcome<Value>(cancelled: Bool, errors: [any Error]) -> FutureResult<Value>? {
        if cancelled { return .cancelled }
        return failure(from: errors).map { .failure($0) }
    }
}

extension ProcedureQueue {
    /// Adds `procedure` (unless it is on a queue already) and returns the future of its
    /// output. Chains read as they run:
    ///
    /// ```swift
    /// let report = queue.future(FetchUser(id))
    ///     .flatMap { user in queue.future(FetchOrders(for: user)) }
    /// report.cancel()   // cancels whichever procedure is running
    /// ```
    public func future<P: OutputProcedure>(_ procedure: P) -> Future<P.Output> {
        let future = procedure.future
        if !procedure.isEnqueued { addOperation(procedure) }
        return future
    }

    /// Adds `procedure` (unless it is on a queue already) and returns a future that completes
    /// when it finishes.
    @_disfavoredOverload
    public func future(_ procedure: Procedure) -> Future<Void> {
        let future = procedure.future
        if !procedure.isEnqueued { addOperation(procedure) }
        return future
    }
}
