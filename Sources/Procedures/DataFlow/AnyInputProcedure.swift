import Foundation

/// A concrete procedure type for any ``InputProcedure`` of a given input: it runs the
/// procedure as its only child and forwards its input to it.
///
/// Prefer Swift's `any InputProcedure<Input>` for storing procedures of different classes
/// and for calling ``InputProcedure/injectResult(from:)-2hhe5`` on them; use this wrapper where a
/// concrete type that conforms is required (a generic class's type argument, say). See
/// ``AnyOutputProcedure`` for the same choice on the output side. The wrapper costs one
/// group.
public final class AnyInputProcedure<Input: Sendable>: GroupProcedure, InputProcedure, @unchecked Sendable {
    // @unchecked: `procedure` is immutable; `input` forwards to it (set before this
    // procedure executes, so before the wrapped one can start).

    /// The wrapped procedure.
    public let procedure: any InputProcedure<Input>

    /// Wraps `procedure`, which must not be on a queue or in a group yet.
    public init(_ procedure: any InputProcedure<Input>) {
        self.procedure = procedure
        super.init(operations: [procedure])
    }

    /// The wrapped procedure's input.
    public var input: Input? {
        get { procedure.input }
        set { procedure.input = newValue }
    }
}
