import Foundation

/// A concrete procedure type for any ``OutputProcedure`` of a given output: it runs the
/// procedure as its only child and has the same output.
///
/// **Which to use.** Prefer Swift's own `any OutputProcedure<Output>`: it stores procedures of
/// different classes in one array or property, and can be passed to
/// ``InputProcedure/injectResult(from:)-2hhe5`` and to any generic function (Swift opens it). An
/// existential does not conform to the protocol itself, though, so it cannot be the element
/// of a collection you call `gathered()` on, nor the type argument of a
/// generic class that requires an ``OutputProcedure``: wrap it in `AnyOutputProcedure` there.
/// The wrapper costs one group.
///
/// ```swift
/// let sources: [any OutputProcedure<Int>] = [ResultProcedure { 1 }, TransformProcedure(input: "ab") { $0.count }]
/// let total = sources.map { AnyOutputProcedure($0) }.gathered()
/// ```
public final class AnyOutputProcedure<Output: Sendable>: GroupProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked: `procedure` is immutable.

    /// The wrapped procedure.
    public let procedure: any OutputProcedure<Output>

    /// Wraps `procedure`, which must not be on a queue or in a group yet.
    public init(_ procedure: any OutputProcedure<Output>) {
        self.procedure = procedure
        super.init(operations: [procedure])
    }

    /// The wrapped procedure's output, once this one finished without errors and without
    /// being cancelled.
    public var output: Output? {
        guard isFinished, !isCancelled, errors.isEmpty else { return nil }
        return procedure.output
    }
}
