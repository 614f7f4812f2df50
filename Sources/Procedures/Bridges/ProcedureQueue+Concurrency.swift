import Foundation

extension ProcedureQueue {
    /// Adds `procedure` to this queue (unless it is on a queue already), waits for it to
    /// finish without blocking a thread, and returns its output.
    ///
    /// Cancelling the awaiting `Task` cancels the procedure. The outcome maps as follows:
    /// finished without errors → its output; cancelled (with or without errors; they stay in
    /// the procedure's `errors`) → `CancellationError`; finished with one error → that error;
    /// with several → ``ProcedureError/multiple(errors:)``.
    ///
    /// ```swift
    /// let page = try await queue.run(ResultProcedure { try await client.fetchPage() })
    /// ```
    public func run<P: OutputProcedure>(_ procedure: P) async throws -> P.Output {
        try await runToFinish(procedure)
        guard let output = procedure.output else {
            throw ProcedureError.dependencyProducedNoOutput(name: procedure.displayName)
        }
        return output
    }

    /// Adds `procedure` to this queue (unless it is on a queue already) and waits for it to
    /// finish. Errors and cancellation map as for the output-returning `run(_:)`.
    ///
    /// ```swift
    /// try await queue.run(GroupProcedure(operations: steps))
    /// ```
    @_disfavoredOverload
    public func run(_ procedure: Procedure) async throws {
        try await runToFinish(procedure)
    }

    private func runToFinish(_ procedure: Procedure) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                procedure.addDidFinishBlockObserver { procedure, errors in
                    let outcome: FutureResult<Void> =
                        Procedure.outcome(cancelled: procedure.isCancelled, errors: errors) ?? .success(())
                    switch outcome {
                    case .success: continuation.resume()
                    case .failure(let error): continuation.resume(throwing: error)
                    case .cancelled: continuation.resume(throwing: CancellationError())
                    }
                }
                if !procedure.isEnqueued { addOperation(procedure) }
            }
        } onCancel: {
            procedure.cancel()
        }
    }
}
