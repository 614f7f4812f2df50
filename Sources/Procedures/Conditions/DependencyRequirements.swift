import Foundation
import ProceduresSupport

extension Condition {
    /// What a condition's own dependencies (added or produced) must not have done for the
    /// condition to be evaluated at all. Set it with ``Condition/dependencyRequirements``.
    ///
    /// When a requirement is not met, the condition is not evaluated and fails with
    /// ``ConditionError/dependenciesFailed(names:)`` or
    /// ``ConditionError/dependenciesCancelled(names:)``, naming the dependencies.
    public struct DependencyRequirements: OptionSet, Sendable, Hashable {
        /// The bits of the requirements.
        public let rawValue: UInt8

        /// Requirements from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// No requirement: the condition is evaluated whatever its dependencies did (the
        /// default). The same as `[]`.
        public static let none: DependencyRequirements = []
        /// Not evaluated if a dependency carries errors (it finished with errors, or was
        /// cancelled with errors).
        public static let noFailed = DependencyRequirements(rawValue: 1 << 0)
        /// Not evaluated if a dependency was cancelled, with or without errors.
        public static let noCancelled = DependencyRequirements(rawValue: 1 << 1)
        /// Not evaluated if a dependency failed or was cancelled.
        public static let noFailedOrCancelled: DependencyRequirements = [.noFailed, .noCancelled]
        /// With ``noFailed``: a dependency that was cancelled with errors does not count as
        /// failed.
        public static let ignoreFailedIfCancelled = DependencyRequirements(rawValue: 1 << 2)
    }

    /// The error that stops the condition before it is evaluated, if its dependencies did
    /// what ``dependencyRequirements`` rules out. They have all finished by now.
    func unmetRequirement() -> ConditionError? {
        let requirements = dependencyRequirements
        guard !requirements.isEmpty else { return nil }
        var failed: [String] = []
        var cancelled: [String] = []
        for dependency in dependencies + producedDependencies {
            let isCancelled = dependency.isCancelled
            if requirements.contains(.noCancelled) && isCancelled {
                cancelled.append(dependency.displayName)
            }
            if requirements.contains(.noFailed) && dependency.failed
                && !(isCancelled && requirements.contains(.ignoreFailedIfCancelled)) {
                failed.append(dependency.displayName)
            }
        }
        if !failed.isEmpty { return .dependenciesFailed(names: failed) }
        if !cancelled.isEmpty { return .dependenciesCancelled(names: cancelled) }
        return nil
    }

    /// ``immediateResult(for:)``, unless its dependencies break its requirements (then it fails
    /// without being evaluated), for a condition that ``answersAtOnce``.
    final func immediateResultIfRequirementsMet(for procedure: Procedure) -> ConditionResult {
        if let unmet = unmetRequirement() { return .failed(unmet) }
        assertNoLibraryLockHeld("a condition's evaluate(for:completion:)")
        return immediateResult(for: procedure)
    }

    /// Evaluates the condition unless its dependencies break its requirements, in which case
    /// it fails without being evaluated. The library evaluates conditions through this (a
    /// compound condition its parts too).
    final func evaluateIfRequirementsMet(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        if let unmet = unmetRequirement() {
            completion(.failed(unmet))
        } else {
            assertNoLibraryLockHeld("a condition's evaluate(for:completion:)")
            evaluate(for: procedure, completion: completion)
        }
    }
}
