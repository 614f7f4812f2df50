import Foundation

extension ProcedureQueue {
    /// Adds `procedure` to this queue (unless it is on a queue already), waits for it to
    /// finish without blocking a thread, and returns its output.
    ///
    /// Cancelling the awaiting `Task` cancels the procedure. The outcome maps as follows:
    /// finished without errors → its output; cancelled without errors → `CancellationError`;
    /// one error (cancelled with it or finished with it) → that error; several →
    /// ``ProcedureError/multiple(errors:)``.
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
                    if let error = Procedure.outcomeError(cancelled: procedure.isCancelled, errors: errors) {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume()
                    }
                }
                if !procedure.isEnqueued { addOperation(procedure) }
            }
        } onCancel: {
            procedure.cancel()
        }
    }
}

extension Procedure {
    /// The one error that stands for a finished procedure's outcome, or nil for success.
    static func outcomeError(cancelled: Bool, errors: [any Error]) -> (any Error)? {
        switch errors.count {
        case 0: return cancelled ? CancellationError() : nil
        case 1: return errors[0]
        default: return ProcedureError.multiple(errors: errors)
        }
    }
}
