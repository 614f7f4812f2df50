import Foundation

/// Where a future runs the code you give it (handlers and combinator closures).
///
/// Internal plumbing (passing a result from one future to the next) never hops; only your
/// closures run on the context. `DispatchQueue` and `OperationQueue` conform, and
/// ``ImmediateExecutionContext`` runs work on the thread that completes the future.
///
/// ```swift
/// future.map(context: DispatchQueue.global()) { heavyParse($0) }
/// future.onSuccess(context: .immediate) { print($0) }
/// ```
public protocol ExecutionContext: Sendable {
    /// Runs `work` once, now or later, on any thread this context chooses.
    func execute(_ work: @escaping @Sendable () -> Void)

    /// `true` only if ``execute(_:)`` always runs `work` synchronously before returning.
    ///
    /// Futures run the closures of such a context inside their own completion loop instead of
    /// calling `execute`, which keeps long chains from growing the stack. Defaults to `false`.
    var executesImmediately: Bool { get }
}

extension ExecutionContext {
    /// Most contexts hop: `false`.
    public var executesImmediately: Bool { false }
}

/// Runs work at once on the calling thread: the thread that completes the future, or the one
/// registering on an already completed future.
///
/// The cheapest context (no allocation, no hop). Chains stay stack-safe because futures loop
/// over ready callbacks rather than recursing. Your closure then runs on whatever thread
/// completes the future, so keep it short and thread-agnostic.
public struct ImmediateExecutionContext: ExecutionContext {
    /// Creates the immediate context.
    public init() {}

    /// Runs `work` before returning.
    public func execute(_ work: @escaping @Sendable () -> Void) { work() }

    /// Always `true`.
    public var executesImmediately: Bool { true }
}

extension ExecutionContext where Self == ImmediateExecutionContext {
    /// The immediate context: `context: .immediate`.
    public static var immediate: ImmediateExecutionContext { ImmediateExecutionContext() }
}

extension DispatchQueue: ExecutionContext {
    /// Submits `work` with `async`.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        async(execute: work)
    }
}

extension OperationQueue: ExecutionContext {
    /// Adds `work` as a block operation.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        addOperation(work)
    }
}
