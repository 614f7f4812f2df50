import Foundation

/// A condition made of one other, whose exclusivity categories it claims: the base of
/// ``NegatedCondition``, ``SilentCondition`` and ``IgnoredCondition`` (ProcedureKit's
/// `ComposedCondition`, which is not made on its own here: it would only repeat its condition).
public class ComposedCondition: Condition, @unchecked Sendable {
    // @unchecked: `condition`, `label` and `waitsForDependencies` are immutable.
    /// The condition this one is made of.
    public let condition: Condition
    private let label: String
    private let waitsForDependencies: Bool

    /// `label` names it (`label<inner name>`); `waitsForDependencies`: whether `condition`'s
    /// dependencies are produced and waited for.
    init(_ condition: Condition, label: String, waitsForDependencies: Bool) {
        self.condition = condition
        self.label = label
        self.waitsForDependencies = waitsForDependencies
        super.init()
    }

    override final var defaultName: String { "\(label)<\(condition.name)>" }

    override final var parts: [Condition] { waitsForDependencies ? [condition] : [] }

    /// The inner condition's categories.
    public final override var mutuallyExclusiveCategories: [String] { condition.mutuallyExclusiveCategories }
}

/// Satisfied if `condition` is not; fails with ``ConditionError/negatedConditionSatisfied(name:)``
/// if it is. Also written `!condition`.
public final class NegatedCondition: ComposedCondition, @unchecked Sendable {
    // @unchecked: no state of its own (see ComposedCondition).

    /// Negates `condition` (and waits for its dependencies).
    public init(_ condition: Condition) {
        super.init(condition, label: "Not", waitsForDependencies: true)
    }

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
}

/// `condition` without its dependencies: they are neither produced nor waited for.
///
/// Use it to check something without causing anything, e.g. "is the user logged in" without
/// presenting the login screen that the condition would otherwise produce.
public final class SilentCondition: ComposedCondition, @unchecked Sendable {
    // @unchecked: no state of its own (see ComposedCondition).

    /// Evaluates `condition` without its dependencies.
    public init(_ condition: Condition) {
        super.init(condition, label: "Silent", waitsForDependencies: false)
    }

    /// The inner condition's answer.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        condition.evaluate(for: procedure, completion: completion)
    }
}

/// `condition`, with a failure turned into ``ConditionResult/ignored``: the procedure is
/// cancelled without an error.
public final class IgnoredCondition: ComposedCondition, @unchecked Sendable {
    // @unchecked: no state of its own (see ComposedCondition).

    /// Wraps `condition` (and waits for its dependencies).
    public init(_ condition: Condition) {
        super.init(condition, label: "Ignored", waitsForDependencies: true)
    }

    /// The inner condition's answer, a failure made ignored.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        condition.evaluateIfRequirementsMet(for: procedure) { result in
            if case .failed = result { completion(.ignored) } else { completion(result) }
        }
    }
}
