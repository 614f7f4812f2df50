import Foundation

/// A concrete procedure type for any procedure that is both an ``InputProcedure`` and an
/// ``OutputProcedure`` of given types: it runs the procedure as its only child, forwards its
/// input to it, and has the same output.
///
/// Prefer Swift's `any InputProcedure<Input> & OutputProcedure<Output>` to store such
/// procedures; use this wrapper where a concrete conforming type is required (see
/// ``AnyOutputProcedure``). The wrapper costs one group.
///
/// ```swift
/// let summaries: [AnyProcedure<[Int], Int>] = [
///     AnyProcedure(ReduceProcedure(0) { $0 + $1 }),
///     AnyProcedure(TransformProcedure { (numbers: [Int]) in numbers.count }),
/// ]
/// ```
public final class AnyProcedure<Input: Sendable, Output: Sendable>: GroupProcedure, InputProcedure, OutputProcedure,
    @unchecked Sendable
{
    // @unchecked: `procedure` is immutable; `input` forwards to it (set before this
    // procedure executes, so before the wrapped one can start).

    /// The wrapped procedure.
    public let procedure: any InputProcedure<Input> & OutputProcedure<Output>

    /// Wraps `procedure`, which must not be on a queue or in a group yet.
    public init(_ procedure: any InputProcedure<Input> & OutputProcedure<Output>) {
        self.procedure = procedure
        super.init(operations: [procedure])
    }

    /// The wrapped procedure's input.
    public var input: Input? {
        get { procedure.input }
        set { procedure.input = newValue }
    }

    /// The wrapped procedure's output, once this one finished without errors and without
    /// being cancelled.
    public var output: Output? {
        guard isFinished, !isCancelled, errors.isEmpty else { return nil }
        return procedure.output
    }
}
