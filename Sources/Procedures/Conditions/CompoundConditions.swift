import Foundation
import ProceduresSupport

/// Satisfied if every one of `conditions` is. Evaluates them in order and stops at the first
/// that is not, answering what it answered (a failure names it). Also written `a && b`.
public final class AllOfCondition: Condition, @unchecked Sendable {
    // @unchecked: `conditions` is immutable.
    /// The conditions, in order, each once.
    public let conditions: [Condition]

    override var defaultName: String { "AllOf<\(conditions.map(\.name).joined(separator: ", "))>" }

    /// All of `conditions` (waiting for their dependencies); a condition named twice is
    /// evaluated once.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.uniqued { ObjectIdentifier($0) }
        super.init()
    }

    override var parts: [Condition] { conditions }

    /// Evaluates the conditions in order.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let conditions = self.conditions
        PartEvaluation.run(conditions, state: (), for: procedure, decide: { index, result, _ in
            switch result {
            case .satisfied: return nil
            case .failed(let error): return .failed(ConditionGate.conditionError(error, of: conditions[index]))
            case .ignored: return .ignored
            }
        }, whenDone: { _ in .satisfied }, completion: completion)
    }

    /// Every condition's categories.
    public override var mutuallyExclusiveCategories: [String] { conditions.flatMap(\.mutuallyExclusiveCategories).uniqued { $0 } }
}

/// Satisfied if any of `conditions` is. Evaluates them in order and stops at the first that
/// is satisfied; if none is, it is ignored when all were ignored, and otherwise fails with
/// ``ConditionError/noConditionSatisfied(names:)``. Also written `a || b`.
public final class AnyOfCondition: Condition, @unchecked Sendable {
    // @unchecked: `conditions` is immutable.
    /// The conditions, in order, each once.
    public let conditions: [Condition]

    override var defaultName: String { "AnyOf<\(conditions.map(\.name).joined(separator: ", "))>" }

    /// Any of `conditions` (waiting for all their dependencies); a condition named twice is
    /// evaluated once.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.uniqued { ObjectIdentifier($0) }
        super.init()
    }

    override var parts: [Condition] { conditions }

    /// Evaluates the conditions in order.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let conditions = self.conditions
        // The state: were all the answers so far `.ignored`?
        PartEvaluation.run(conditions, state: true, for: procedure, decide: { _, result, allIgnored in
            switch result {
            case .satisfied: return .satisfied
            case .failed: allIgnored = false
            case .ignored: break
            }
            return nil
        }, whenDone: { allIgnored in
            if allIgnored && !conditions.isEmpty { return .ignored }
            return .failed(ConditionError.noConditionSatisfied(names: conditions.map(\.name)))
        }, completion: completion)
    }

    /// Every condition's categories (it cannot know in advance which one will hold).
    public override var mutuallyExclusiveCategories: [String] { conditions.flatMap(\.mutuallyExclusiveCategories).uniqued { $0 } }
}

/// Satisfied if both are: `AllOfCondition([lhs, rhs])`.
///
/// Each `&&` nests one compound in another, and checking, describing and freeing a compound
/// go one level deeper per `&&`: for more than a few dozen conditions write
/// `AllOfCondition([a, b, c, …])`, which is flat at any size.
public func && (lhs: Condition, rhs: Condition) -> AllOfCondition {
    AllOfCondition([lhs, rhs])
}

/// Satisfied if either is: `AnyOfCondition([lhs, rhs])`. For many conditions, write
/// `AnyOfCondition([a, b, c, …])` (see `&&`).
public func || (lhs: Condition, rhs: Condition) -> AnyOfCondition {
    AnyOfCondition([lhs, rhs])
}

/// Satisfied if `condition` is not: `NegatedCondition(condition)`.
public prefix func ! (condition: Condition) -> NegatedCondition {
    NegatedCondition(condition)
}
