import Foundation

/// A procedure is something a cancellation token can cancel.
extension Procedure: Cancelable {}

extension OutputProcedure {
    /// A future of this procedure's output: success with the output, failure with its error
    /// (several errors arrive as one ``ProcedureError/multiple(errors:)``), cancelled when the
    /// procedure was cancelled. A procedure that succeeded without an output fails with
    /// ``ProcedureError/dependencyProducedNoOutput(name:)``.
    ///
    /// Every call returns the same future. A cancel request that reaches it (from a token taken
    /// at the tail of a chain, say, once every consumer has asked) cancels the procedure. The
    /// future does not start the procedure: add it to a queue, or use
    /// ``ProcedureQueue/future(_:)``, which does both. Asked of a finished procedure, it
    /// completes at once.
    public var future: Future<Output> {
        bridgedFuture(\.outputFuture) { procedure in
            guard let output = (procedure as! Self).output else {
                return .failure(ProcedureError.dependencyProducedNoOutput(name: procedure.displayName))
            }
            return .success(output)
        }
    }
}

extension Procedure {
    /// A future that completes when the procedure finishes: success, failure with its error(s),
    /// or cancelled. Output procedures also offer a future of their output under the same name.
    @_disfavoredOverload
    public var future: Future<Void> {
        bridgedFuture(\.completionFuture) { _ in .success(()) }
    }

    /// The cached future in `slot`, made on first use.
    fileprivate func bridgedFuture<Value: Sendable>(
        _ slot: WritableKeyPath<ProcedureState, AnyObject?>,
        success: @escaping @Sendable (Procedure) -> FutureResult<Value>
    ) -> Future<Value> {
        let promise = Promise<Value>()
        let (future, isNew) = lock.withLock { () -> (Future<Value>, Bool) in
            if let existing = state[keyPath: slot] { return (existing as! Future<Value>, false) }
            state[keyPath: slot] = promise.future
            return (promise.future, true)
        }
        guard isNew else { return future }
        promise.onRequestCancel { [weak self] _ in
            // The procedure decides when it is done; its did-finish completes the promise.
            self?.cancel()
            return .continue
        }
        addDidFinishBlockObserver { procedure, errors in
            promise.complete(Procedure.outcome(cancelled: procedure.isCancelled, errors: errors) ?? success(procedure))
        }
        return future
    }

    /// A finished procedure's outcome as a future result, or nil when it succeeded.
    static func outcome<Value>(cancelled: Bool, errors: [any Error]) -> FutureResult<Value>? {
        if cancelled { return .cancelled }
        switch errors.count {
        case 0: return nil
        case 1: return .failure(errors[0])
        default: return .failure(ProcedureError.multiple(errors: errors))
        }
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
