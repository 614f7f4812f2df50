import Foundation

/// A group of one operation, so that the operation can be given what only a procedure has —
/// observers, conditions (`addCondition(_:)`), dependencies on procedures, a place in a
/// group's error handling — or be gated (``GatedProcedure``) or have its errors ignored
/// (``IgnoreErrorsProcedure``).
///
/// ```swift
/// let composed = ComposedProcedure(legacyOperation)      // a plain Operation
/// composed.addDidFinishBlockObserver { _, errors in print("legacy done", errors) }
/// ```
///
/// When the wrapped operation is an ``OutputProcedure`` the composed procedure is one too,
/// with the same output once it finished without errors and without being cancelled; when it
/// is an ``InputProcedure``, setting or injecting the composed procedure's input sets the
/// wrapped one's. Cancelling the composed procedure cancels the operation; the operation's
/// errors are the composed procedure's.
open class ComposedProcedure<Wrapped: Operation>: GroupProcedure, @unchecked Sendable {
    // @unchecked: `operation` is immutable (the operation is itself thread-safe).

    /// The wrapped operation.
    public let operation: Wrapped

    /// Wraps `operation`, which must not be on a queue or in a group yet.
    public init(_ operation: Wrapped) {
        self.operation = operation
        super.init(operations: [operation])
    }
}

extension ComposedProcedure: OutputProcedure where Wrapped: OutputProcedure {
    /// The wrapped procedure's output, once this procedure has finished without errors and
    /// without being cancelled.
    public var output: Wrapped.Output? {
        guard isFinished, !isCancelled, errors.isEmpty else { return nil }
        return operation.output
    }
}

extension ComposedProcedure: InputProcedure where Wrapped: InputProcedure {
    /// The wrapped procedure's input.
    public var input: Wrapped.Input? {
        get { operation.input }
        set { operation.input = newValue }
    }
}
