/// Errors the built-in conditions fail with. The procedure is cancelled with
/// ``ProcedureError/conditionFailed(name:error:)`` wrapping one of these.
public enum ConditionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A ``FalseCondition`` was evaluated.
    case alwaysFalse
    /// A ``BlockCondition``'s block returned false.
    case blockReturnedFalse
    /// Some of the procedure's dependencies (named) finished with errors
    /// (``NoFailedDependenciesCondition``).
    case dependenciesFailed(names: [String])
    /// Some of the procedure's dependencies (named) were cancelled
    /// (``NoFailedDependenciesCondition``).
    case dependenciesCancelled(names: [String])
    /// The condition (named) inside a ``NegatedCondition`` was satisfied.
    case negatedConditionSatisfied(name: String)
    /// None of the conditions of an ``AnyOfCondition`` was satisfied.
    case noConditionSatisfied(names: [String])

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .alwaysFalse: return "the condition is always false"
        case .blockReturnedFalse: return "the block returned false"
        case .dependenciesFailed(let names): return "dependencies failed: \(names.joined(separator: ", "))"
        case .dependenciesCancelled(let names): return "dependencies were cancelled: \(names.joined(separator: ", "))"
        case .negatedConditionSatisfied(let name): return "\(name) was satisfied"
        case .noConditionSatisfied(let names): return "none of \(names.joined(separator: ", ")) was satisfied"
        }
    }
}
