import Foundation
import ProceduresSupport

/// A ``GroupProcedure`` with a typed output, so that a group can be injected, bound, or
/// awaited like any ``OutputProcedure`` — with no lock of your own.
///
/// The output usually comes from a child through ``bind(from:)``; a subclass may also set it
/// with ``setOutput(_:)`` from its children's observers or its own callbacks. Either way the
/// value becomes the group's ``output`` only if the group finishes without errors and without
/// being cancelled (the last value set wins); before that, and after a failure, `output` is
/// nil.
///
/// ```swift
/// final class Summarize: ResultGroupProcedure<Int>, @unchecked Sendable {
///     // @unchecked: no stored properties of its own.
///     init(_ words: [String]) {
///         let count = TransformProcedure(input: words) { $0.count }
///         super.init(operations: [count])
///         bind(from: count)
///     }
/// }
/// ```
///
/// Like every group, it reports one root cause once: a child cancelled because it injects its
/// input from a sibling that failed does not add its error
/// (``ProcedureError/dependencyFailed(name:errors:)``, which repeats the sibling's errors) to
/// the group's. (A child whose source is not in the group keeps it there, since it is then
/// the only report.)
///
/// Subclasses that override ``procedureWillFinish(withErrors:)`` must call `super`.
open class ResultGroupProcedure<Output: Sendable>: GroupProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked: `pending` and `published` are guarded by `outputLock`.
    private let outputLock = InlineLock()
    private var pending: Output?
    private var published: Output?

    /// A group of `operations` with no output yet.
    public override init(operations: [Operation] = []) {
        super.init(operations: operations)
    }

    /// The output, once the group has finished without errors and without being cancelled.
    public final var output: Output? { outputLock.withLock { published } }

    /// Sets the value that becomes the output if the group succeeds. Call it before the group
    /// finishes (from a child's observer, say); a value set later is ignored.
    public final func setOutput(_ value: Output) {
        outputLock.withLock { pending = value }
    }

    /// Makes `source`'s output this group's output: when `source` finishes with an output, the
    /// value is set as with ``setOutput(_:)``.
    ///
    /// `source` should be a child of the group (or finish before it): its did-finish observers
    /// run before the group can finish. A source that fails or is cancelled sets nothing; its
    /// errors reach the group as any child's do.
    public final func bind<Source: OutputProcedure>(from source: Source) where Source.Output == Output {
        source.addDidFinishBlockObserver { [weak self] source, errors in
            guard errors.isEmpty, !source.isCancelled, let value = source.output else { return }
            self?.setOutput(value)
        }
    }

    /// Publishes the output of a group that succeeded. Overrides must call `super`.
    open override func procedureWillFinish(withErrors errors: [any Error]) {
        let succeeded = errors.isEmpty && !isCancelled  // read first: never nest the procedure's lock in ours
        outputLock.withLock {
            if succeeded { published = pending }
            pending = nil
        }
    }
}
