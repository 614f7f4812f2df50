import Foundation

extension ProcedureQueue {
    /// Adds `procedure` to this queue (unless it is on a queue already), waits for it to
    /// finish without blocking a thread, and returns its output.
    ///
    /// Cancelling the awaiting `Task` cancels the procedure. The outcome maps as follows:
    /// finished without errors → its output; cancelled without errors → `CancellationError`;
    /// one error (whether it finished or was cancelled with it) → that error; several →
    /// ``ProcedureError/multiple(errors:)``. So a procedure cancelled because its injected
    /// input failed throws the error that names the cause.
    ///
    /// ```swift
    /// let page = try await queue.run(ResultProcedure { try await client.fetchPage() })
    /// ```
    ///
    /// The output may be ignored: `try await queue.run(procedure)` runs it for its effect.
    @discardableResult
    public func run<P: OutputProcedure>(_ procedure: P) async throws -> P.Output {
        try await runToFinish(procedure)
        guard let output = procedure.output else {
            throw ProcedureError.noOutput(name: procedure.displayName)
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
        // When the procedure finishes before this task has suspended, Swift's runtime lets the
        // task carry on on its own thread through an atomic of its own, which ThreadSanitizer
        // does not see: it would then report what the procedure wrote and the caller reads
        // next (a download's data) as a race. Reading the procedure's state under its lock,
        // which the finish released after that work, gives the order a visible edge.
        defer { _ = procedure.isFinished }
        try await withTaskCancellationHandler {
            // Unsafe rather than checked: `FinishResumer` resumes exactly once (a did-finish
            // observer runs once, and once for an observer added after the finish), and the
            // checked kind costs an object of its own per await.
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                procedure.addObserver(FinishResumer(continuation: continuation))
                if !procedure.isEnqueued { addOperation(procedure) }
            }
        } onCancel: {
            procedure.cancel()
        }
    }
}

/// Resumes an awaiting task when its procedure finishes. A struct of one reference rather
/// than a block observer: it fits in the observer list's existential inline, so adding it
/// allocates nothing.
private struct FinishResumer: ProcedureObserver {
    let continuation: UnsafeContinuation<Void, any Error>

    func didFinish(_ procedure: Procedure, errors: [any Error]) {
        // Unlike a future's `.cancelled`, a thrown error can carry why the procedure was
        // cancelled (say, its injected input failed): only a bare cancel is a
        // CancellationError.
        if let failure = Procedure.failure(from: errors) {
            continuation.resume(throwing: failure)
        } else if procedure.isCancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            continuation.resume()
        }
    }
}
