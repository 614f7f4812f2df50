import Foundation
import ProceduresSupport
import Synchronization

/// What a ``Condition`` decided.
public enum ConditionResult: Sendable {
    /// The procedure may run.
    case satisfied
    /// The procedure must not run: it is cancelled with
    /// ``ProcedureError/conditionFailed(name:error:)`` carrying the condition's name and `error`.
    case failed(any Error)
    /// The procedure must not run, and that is not an error: it is cancelled without errors.
    case ignored
}

/// Something that must hold before a procedure runs, checked asynchronously.
///
/// Subclass it and override ``evaluate(for:completion:)``, or use a built-in one
/// (``BlockCondition``, ``NoFailedDependenciesCondition``, ``MutuallyExclusive``, …). Add it
/// with ``Procedure/addCondition(_:)`` before the procedure is enqueued.
///
/// A procedure's conditions are evaluated once its dependencies have finished and before
/// its will-execute observers run, one at a time in the order they were added, each at most
/// once; the first one that does not answer ``ConditionResult/satisfied`` stops the evaluation
/// and cancels the procedure. While they are evaluated the procedure holds no queue slot
/// and no thread.
///
/// A condition may have dependencies of its own (``addDependency(_:)``), which someone else
/// runs, and may produce procedures (``produceDependency(_:)``), which the library adds to the
/// procedure's queue: it is evaluated only once they have all finished.
///
/// Subclasses restate `@unchecked Sendable` and keep their own state immutable or locked.
open class Condition: @unchecked Sendable {
    // @unchecked: the mutable `settings` are guarded by `Condition.lock`. One lock for all
    // conditions rather than one each: the settings are written while setting a condition up
    // and read once per evaluation, and a condition (often made per procedure) costs no lock
    // allocation. Shared by every thread that adds or checks a condition, which is why it is
    // an `InlineLock`: it never hands a contended lock to a sleeping waiter (no convoy).
    private static let lock = InlineLock()

    /// What a condition is set up with, guarded by `Condition.lock`.
    private struct Settings {
        var name: String?
        var dependencies: [Procedure] = []
        var produced: [Procedure] = []
        var requirements = DependencyRequirements.none
    }

    // Only touched under `Condition.lock` (read a few times per procedure: the exclusivity check stays on).
    private var settings = Settings()
    /// Set (under `lock`, never cleared) once the condition is given a dependency, a produced
    /// procedure or requirements. Most conditions never are, and checking them then takes no
    /// lock: one acquiring load, which orders the settings made before it was set.
    private let hasDependencySettings = Atomic<Bool>(false)

    /// A condition; subclasses set themselves up and call `super.init()`.
    public init() {}

    /// The name when none was set; built only when asked for.
    var defaultName: String { String(describing: type(of: self)) }

    /// The condition's name, used in errors and in the procedure's state summary. Defaults
    /// to the type's name. Thread-safe.
    public final var name: String {
        get { Self.lock.withLock { settings.name } ?? defaultName }
        set { Self.lock.withLock { settings.name = newValue } }
    }

    /// Decides whether `procedure` may run. Call `completion` exactly once, from any thread,
    /// now or later; never block waiting for something. A second call is ignored and
    /// reported as ``ProcedureMisuse/Kind/conditionCompletedTwice``.
    ///
    /// The default is satisfied.
    open func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.satisfied)
    }

    /// The categories the procedure must hold exclusively while it runs (see
    /// ``MutuallyExclusive``). Empty by default.
    open var mutuallyExclusiveCategories: [String] { [] }

    /// True if the condition claims at least one exclusivity category.
    public final var isMutuallyExclusive: Bool { !mutuallyExclusiveCategories.isEmpty }

    /// Adds the categories it claims to `list` (``mutuallyExclusiveCategories``; a condition
    /// that claims one category adds it without making an array).
    func addCategories(to list: inout CategoryList) {
        let categories = mutuallyExclusiveCategories
        if !categories.isEmpty { list.append(contentsOf: categories) }
    }

    /// True for a condition that answers at once, through ``immediateResult(for:)``, which
    /// gives what ``evaluate(for:completion:)`` would: it is then asked for that and handed no
    /// completion. Only the library's final classes answer so (an override of `evaluate` is
    /// always called), and none of them claims a category.
    var answersAtOnce: Bool { false }

    /// The answer of a condition that ``answersAtOnce``.
    func immediateResult(for procedure: Procedure) -> ConditionResult {
        preconditionFailure("\(type(of: self)) does not answer at once: evaluate it with a completion")
    }

    /// True for a condition whose ``evaluate(for:completion:)`` always answers `.satisfied` at
    /// once and which no subclass can change (``MutuallyExclusive``): the gate then only checks
    /// its dependency requirements.
    var isSatisfiedByDefinition: Bool { false }

    // MARK: - Dependencies

    /// Procedures that must finish before this condition is evaluated. The condition only
    /// waits for them: add them to a queue yourself (or use ``produceDependency(_:)``).
    /// Add them before adding the condition to a procedure. A compound condition
    /// (``AllOfCondition``, ``NegatedCondition``, …) lists only its own here, and also waits
    /// for its parts' dependencies, gathered when the procedure checks its conditions.
    public final var dependencies: [Procedure] { Self.lock.withLock { settings.dependencies } }

    /// Makes the condition wait for `procedure` to finish before it is evaluated.
    public final func addDependency(_ procedure: Procedure) {
        Self.lock.withLock {
            settings.dependencies.append(procedure)
            hasDependencySettings.store(true, ordering: .releasing)
        }
    }

    /// What the condition's own dependencies must not have done for it to be evaluated:
    /// ``DependencyRequirements/none`` by default. With ``DependencyRequirements/noFailed``,
    /// say, a dependency that failed makes the condition fail without being evaluated.
    ///
    /// Checked wherever the condition is evaluated, as a part of a compound condition too,
    /// where an unmet requirement is that part's failure (so `!condition` is then satisfied).
    /// Set it before adding the condition to a procedure.
    public final var dependencyRequirements: DependencyRequirements {
        get {
            guard hasDependencySettings.load(ordering: .acquiring) else { return .none }
            return Self.lock.withLock { settings.requirements }
        }
        set {
            Self.lock.withLock {
                settings.requirements = newValue
                hasDependencySettings.store(true, ordering: .releasing)
            }
        }
    }

    /// Stops waiting for `procedure`, whether it was added with ``addDependency(_:)`` or
    /// ``produceDependency(_:)``. Like them, call it before adding the condition to a procedure.
    public final func removeDependency(_ procedure: Procedure) {
        Self.lock.withLock {
            settings.dependencies.removeAll { $0 === procedure }
            settings.produced.removeAll { $0 === procedure }
        }
    }

    /// The procedures this condition produces. See ``produceDependency(_:)``.
    public final var producedDependencies: [Procedure] { Self.lock.withLock { settings.produced } }

    /// Makes `procedure` run before this condition is evaluated: once the procedure the
    /// condition belongs to has its dependencies finished, `procedure` is added to the same
    /// queue (a group's child becomes a child of the same group; a procedure started by hand
    /// starts it by hand), and the condition is evaluated once it has finished. It is
    /// cancelled if the procedure is cancelled first. A condition that produces procedures
    /// belongs to one procedure only.
    public final func produceDependency(_ procedure: Procedure) {
        Self.lock.withLock {
            settings.produced.append(procedure)
            hasDependencySettings.store(true, ordering: .releasing)
        }
    }

    /// The conditions this one is made of (a compound condition's parts), whose dependencies
    /// it waits for too. Empty for a plain condition, and for ``SilentCondition``.
    var parts: [Condition] { [] }

    /// False if the condition certainly waits for no procedure before it is evaluated: it
    /// was given no dependency, produced procedure or requirements, and has no parts (which
    /// could have some). No lock is taken.
    var mayWaitForProcedures: Bool {
        hasDependencySettings.load(ordering: .acquiring) || !parts.isEmpty
    }

    /// Appends the dependencies to wait for (produced ones included) and the produced ones,
    /// of `conditions` and of their parts, nested to any depth, each procedure once.
    ///
    /// Gathered when the procedure checks its conditions rather than when a compound is
    /// built, so a part set up after the compound still counts. Walks the parts with a
    /// stack of its own: `a && b && c …` nests as deep as the chain is long.
    static func collectDependencies(
        of conditions: some Collection<Condition>, into dependencies: inout [Procedure], produced: inout [Procedure]
    ) {
        var seen = Set<ObjectIdentifier>()
        var pending: [Condition] = []  // parts still to visit, the next one last
        for top in conditions {
            var next: Condition? = top
            while let condition = next {
                collect(condition)
                let parts = condition.parts
                if !parts.isEmpty { pending.append(contentsOf: parts.reversed()) }
                next = pending.popLast()
            }
        }

        func collect(_ condition: Condition) {
            // Most conditions have no dependencies: no lock is taken and nothing is copied.
            guard condition.hasDependencySettings.load(ordering: .acquiring) else { return }
            let lists = Self.lock.withLock { () -> (waited: [Procedure], made: [Procedure])? in
                if condition.settings.dependencies.isEmpty && condition.settings.produced.isEmpty { return nil }
                return (condition.settings.dependencies, condition.settings.produced)
            }
            guard let lists else { return }
            for procedure in lists.made where seen.insert(ObjectIdentifier(procedure)).inserted {
                dependencies.append(procedure)
                produced.append(procedure)
            }
            for procedure in lists.waited where seen.insert(ObjectIdentifier(procedure)).inserted {
                dependencies.append(procedure)
            }
        }
    }
}

/// Conditions are equal only to themselves: one condition added to several procedures is the
/// same condition, two conditions of the same type with the same settings are not.
extension Condition: Hashable {
    /// True if `lhs` and `rhs` are the same object.
    public static func == (lhs: Condition, rhs: Condition) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
