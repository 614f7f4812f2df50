import Foundation

/// Satisfied if `condition` is not; fails with ``ConditionError/negatedConditionSatisfied(name:)``
/// if it is. Also written `!condition`.
public final class NegatedCondition: Condition, @unchecked Sendable {
    // @unchecked: `condition` is immutable.
    /// The condition negated.
    public let condition: Condition

    override var defaultName: String { "Not<\(condition.name)>" }

    /// Negates `condition` (and waits for its dependencies).
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
    }

    override var parts: [Condition] { [condition] }

    /// Evaluates the inner condition and inverts its answer: failed or ignored → satisfied.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let innerName = condition.name
        condition.evaluateIfRequirementsMet(for: procedure) { result in
            switch result {
            case .satisfied: completion(.failed(ConditionError.negatedConditionSatisfied(name: innerName)))
            case .failed, .ignored: completion(.satisfied)
            }
        }
    }

    /// The inner condition's categories.
    public override var mutuallyExclusiveCategories: [String] { condition.mutuallyExclusiveCategories }
}

/// `condition` without its dependencies: they are neither produced nor waited for.
///
/// Use it to check something without causing anything, e.g. "is the user logged in" without
/// presenting the login screen that the condition would otherwise produce.
public final class SilentCondition: Condition, @unchecked Sendable {
    // @unchecked: `condition` is immutable.
    /// The condition silenced.
    public let condition: Condition

    override var defaultName: String { "Silent<\(condition.name)>" }

    /// Evaluates `condition` without its dependencies.
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
    }

    /// The inner condition's answer.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        condition.evaluate(for: procedure, completion: completion)
    }

    /// The inner condition's categories.
    public override var mutuallyExclusiveCategories: [String] { condition.mutuallyExclusiveCategories }
}

/// `condition`, with a failure turned into ``ConditionResult/ignored``: the procedure is
/// cancelled without an error.
public final class IgnoredCondition: Condition, @unchecked Sendable {
    // @unchecked: `condition` is immutable.
    /// The condition whose failure is ignored.
    public let condition: Condition

    override var defaultName: String { "Ignored<\(condition.name)>" }

    /// Wraps `condition` (and waits for its dependencies).
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
    }

    override var parts: [Condition] { [condition] }

    /// The inner condition's answer, a failure made ignored.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        condition.evaluateIfRequirementsMet(for: procedure) { result in
            if case .failed = result { completion(.ignored) } else { completion(result) }
        }
    }

    /// The inner condition's categories.
    public override var mutuallyExclusiveCategories: [String] { condition.mutuallyExclusiveCategories }
}

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
