import Foundation

extension OutputProcedure {
    /// One procedure that runs this one, then `transform` on its output, and outputs the
    /// result: a typed step in one line.
    ///
    /// ```swift
    /// let hash = ProcessProcedure(executable: "sha256sum", arguments: [path])
    ///     .transform { (result: ProcessResult) in FileHash(sha256sumOutput: result.standardOutputString) }
    /// let digest = try await queue.run(hash)      // a FileHash
    /// ```
    ///
    /// The result is a ``ResultGroupProcedure`` whose children are this procedure and a
    /// ``TransformProcedure`` injected from it, so it can go wherever one procedure is expected:
    /// on a queue, as a ``BatchProcedure`` child (`makeChild:`), as a ``RetryProcedure``
    /// attempt. Add only the result to a queue: this procedure becomes its child (adding it to
    /// a queue too is reported as misuse). If this procedure is on a queue already, it stays
    /// there, and the result's transform waits for it.
    ///
    /// If this procedure fails, the transform does not run and the result fails with this
    /// procedure's errors, reported once; if it is cancelled, the result fails with
    /// ``ProcedureError/dependencyCancelled(name:errors:)``. An error `transform` throws fails
    /// the result. Cancelling the result cancels whichever of the two is running.
    ///
    /// It is not called `map`: on a procedure whose output is a sequence, `map` maps the
    /// elements (see `OutputProcedure+Sequence.swift`); `transform` always takes the output
    /// whole.
    public func transform<Transformed: Sendable>(
        _ transform: @escaping @Sendable (Output) throws -> Transformed
    ) -> ResultGroupProcedure<Transformed> {
        wrapped(with: TransformProcedure(transform))
    }

    /// Like ``transform(_:)``, with an `async` transform run in a `Task` that a cancel of the
    /// result cancels.
    ///
    /// ```swift
    /// let page = ResultProcedure { try nextPageURL() }
    ///     .transform(operation: { url in try await client.fetch(url) })
    /// ```
    public func transform<Transformed: Sendable>(
        operation: @escaping @Sendable (Output) async throws -> Transformed
    ) -> ResultGroupProcedure<Transformed> {
        wrapped(with: TransformProcedure(operation: operation))
    }

    private func wrapped<Transformed>(
        with step: TransformProcedure<Output, Transformed>
    ) -> ResultGroupProcedure<Transformed> {
        step.injectResult(from: self)
        let group = ResultGroupProcedure<Transformed>(operations: isEnqueued ? [step] : [self, step])
        group.bind(from: step)
        return group
    }
}
