import Foundation

/// Always satisfied.
public final class TrueCondition: Condition, @unchecked Sendable {
    // @unchecked: no state of its own.
    /// A condition that always holds.
    public override init() { super.init() }

    /// A condition that always holds, named `name` (in errors and state summaries).
    public convenience init(name: String) {
        self.init()
        self.name = name
    }

    /// Satisfied.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.satisfied)
    }

    override var answersAtOnce: Bool { true }

    override func immediateResult(for procedure: Procedure) -> ConditionResult { .satisfied }
}

/// Always fails, with ``ConditionError/alwaysFalse``.
public final class FalseCondition: Condition, @unchecked Sendable {
    // @unchecked: no state of its own.
    /// A condition that never holds.
    public override init() { super.init() }

    /// A condition that never holds, named `name` (in errors and state summaries).
    public convenience init(name: String) {
        self.init()
        self.name = name
    }

    /// Fails.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.failed(ConditionError.alwaysFalse))
    }

    override var answersAtOnce: Bool { true }

    override func immediateResult(for procedure: Procedure) -> ConditionResult { .failed(ConditionError.alwaysFalse) }
}

/// A condition given as a closure.
///
/// ```swift
/// let upload = BlockProcedure { print("uploading") }
/// upload.addCondition(BlockCondition { settings.uploadsEnabled })
/// ```
///
/// The synchronous form runs on the thread that evaluates conditions: keep it short. For
/// anything that waits (a file system check, a network probe, user consent) use the
/// completion form, or the `async` form.
public final class BlockCondition: Condition, @unchecked Sendable {
    // @unchecked: `body` is immutable.
    private enum Body {
        case check(@Sendable () throws -> Bool)
        case evaluate(@Sendable (Procedure, @escaping @Sendable (ConditionResult) -> Void) -> Void)
        case async(@Sendable () async throws -> Bool)
    }

    private let body: Body

    /// Satisfied if `block` returns true; fails with ``ConditionError/blockReturnedFalse`` if
    /// it returns false, and with the error if it throws.
    public init(_ block: @escaping @Sendable () throws -> Bool) {
        body = .check(block)
        super.init()
    }

    /// Calls `evaluate` with the procedure and a completion to call exactly once, from any
    /// thread, now or later.
    public init(evaluate: @escaping @Sendable (Procedure, @escaping @Sendable (ConditionResult) -> Void) -> Void) {
        body = .evaluate(evaluate)
        super.init()
    }

    /// Runs `block` in a `Task`: satisfied if it returns true, failed as with the synchronous
    /// form otherwise. The procedure waits without holding a thread.
    public init(async block: @escaping @Sendable () async throws -> Bool) {
        body = .async(block)
        super.init()
    }

    /// Runs the closure.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        switch body {
        case .check(let block):
            completion(Self.result(of: block))
        case .evaluate(let evaluate):
            evaluate(procedure, completion)
        case .async(let block):
            Task {
                do {
                    completion(try await block() ? .satisfied : .failed(ConditionError.blockReturnedFalse))
                } catch {
                    completion(.failed(error))
                }
            }
        }
    }

    /// The synchronous form answers at once.
    override var answersAtOnce: Bool {
        if case .check = body { return true }
        return false
    }

    override func immediateResult(for procedure: Procedure) -> ConditionResult {
        guard case .check(let block) = body else { return super.immediateResult(for: procedure) }
        return Self.result(of: block)
    }

    private static func result(of block: @Sendable () throws -> Bool) -> ConditionResult {
        do {
            return try block() ? .satisfied : .failed(ConditionError.blockReturnedFalse)
        } catch {
            return .failed(error)
        }
    }
}

/// Fails if any of the procedure's dependencies failed or was cancelled.
///
/// A dependency that finished with errors fails it with ``ConditionError/dependenciesFailed(names:)``.
/// A cancelled one fails it with ``ConditionError/dependenciesCancelled(names:)``, or, with
/// `ignoreCancellations`, cancels the procedure without an error (``ConditionResult/ignored``).
public final class NoFailedDependenciesCondition: Condition, @unchecked Sendable {
    // @unchecked: `ignoreCancellations` is immutable.
    /// True if cancelled dependencies make the procedure cancel silently instead of fail.
    public let ignoreCancellations: Bool

    /// See the type's description.
    public init(ignoreCancellations: Bool = false) {
        self.ignoreCancellations = ignoreCancellations
        super.init()
    }

    override var defaultName: String { "NoFailedDependencies" }

    /// Checks the dependencies, which have all finished by now.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        var failed: [String] = []
        var cancelled: [String] = []
        for dependency in procedure.dependencies {
            let name = (dependency as? Procedure)?.displayName ?? dependency.name ?? String(describing: type(of: dependency))
            if dependency.isCancelled {
                cancelled.append(name)
            } else if let dependency = dependency as? Procedure, dependency.failed {
                failed.append(name)
            }
        }
        if !failed.isEmpty {
            completion(.failed(ConditionError.dependenciesFailed(names: failed)))
        } else if !cancelled.isEmpty {
            completion(ignoreCancellations ? .ignored : .failed(ConditionError.dependenciesCancelled(names: cancelled)))
        } else {
            completion(.satisfied)
        }
    }
}
