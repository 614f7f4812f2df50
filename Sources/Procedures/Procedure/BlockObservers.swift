import Foundation
import ProceduresSupport

/// The procedure types that block observers can be added to; every ``Procedure`` is one.
///
/// It exists so that an observer block receives the procedure as its concrete type: inside
/// `addDidCancelBlockObserver { procedure, errors in … }` added in a subclass, `procedure` is
/// that subclass and its properties are at hand without a cast or a captured `self`.
public protocol ObservableProcedure: Procedure {}

extension Procedure: ObservableProcedure {}

extension ObservableProcedure {
    /// Calls `block` before `execute()`. See ``ProcedureObserver/willExecute(_:)``.
    public func addWillExecuteBlockObserver(_ block: @escaping @Sendable (Self) -> Void) {
        addObserver(BlockObserver<Self>(willExecute: block))
    }

    /// Calls `block` after `execute()` returns. See ``ProcedureObserver/didExecute(_:)``.
    public func addDidExecuteBlockObserver(_ block: @escaping @Sendable (Self) -> Void) {
        addObserver(BlockObserver<Self>(didExecute: block))
    }

    /// Calls `block` when the procedure is cancelled, before the did-cancel hooks. See ``ProcedureObserver/willCancel(_:errors:)``.
    public func addWillCancelBlockObserver(_ block: @escaping @Sendable (Self, [any Error]) -> Void) {
        addObserver(BlockObserver<Self>(willCancel: block))
    }

    /// Calls `block` once the procedure is cancelled. This is where an asynchronous procedure
    /// stops its work and calls `finish()`:
    ///
    /// ```swift
    /// addDidCancelBlockObserver { procedure, _ in
    ///     procedure.timer?.cancel()
    ///     procedure.finish()
    /// }
    /// ```
    public func addDidCancelBlockObserver(_ block: @escaping @Sendable (Self, [any Error]) -> Void) {
        addObserver(BlockObserver<Self>(didCancel: block))
    }

    /// Calls `block` before a produced operation is added to the queue (for a
    /// ``GroupProcedure``, before a child is added). See ``ProcedureObserver/procedure(_:willAdd:)``.
    public func addWillAddOperationBlockObserver(_ block: @escaping @Sendable (Self, Operation) -> Void) {
        addObserver(BlockObserver<Self>(willAdd: block))
    }

    /// Calls `block` after a produced operation was added to the queue (for a
    /// ``GroupProcedure``, after a child was added). See ``ProcedureObserver/procedure(_:didAdd:)``.
    public func addDidAddOperationBlockObserver(_ block: @escaping @Sendable (Self, Operation) -> Void) {
        addObserver(BlockObserver<Self>(didAdd: block))
    }

    /// Calls `block` when the procedure begins finishing, before `isFinished` becomes true.
    public func addWillFinishBlockObserver(_ block: @escaping @Sendable (Self, [any Error]) -> Void) {
        addObserver(BlockObserver<Self>(willFinish: block))
    }

    /// Calls `block` once the procedure has finished (also when added after it finished).
    public func addDidFinishBlockObserver(_ block: @escaping @Sendable (Self, [any Error]) -> Void) {
        addObserver(BlockObserver<Self>(didFinish: block))
    }
}

/// One observer block for one event, typed for the procedure it was added to.
struct BlockObserver<P: Procedure>: ProcedureObserver {
    private enum Block {
        case willExecute(@Sendable (P) -> Void)
        case didExecute(@Sendable (P) -> Void)
        case willCancel(@Sendable (P, [any Error]) -> Void)
        case didCancel(@Sendable (P, [any Error]) -> Void)
        case willAdd(@Sendable (P, Operation) -> Void)
        case didAdd(@Sendable (P, Operation) -> Void)
        case willFinish(@Sendable (P, [any Error]) -> Void)
        case didFinish(@Sendable (P, [any Error]) -> Void)
    }
    private let block: Block

    init(willExecute b: @escaping @Sendable (P) -> Void) { block = .willExecute(b) }
    init(didExecute b: @escaping @Sendable (P) -> Void) { block = .didExecute(b) }
    init(willCancel b: @escaping @Sendable (P, [any Error]) -> Void) { block = .willCancel(b) }
    init(didCancel b: @escaping @Sendable (P, [any Error]) -> Void) { block = .didCancel(b) }
    init(willAdd b: @escaping @Sendable (P, Operation) -> Void) { block = .willAdd(b) }
    init(didAdd b: @escaping @Sendable (P, Operation) -> Void) { block = .didAdd(b) }
    init(willFinish b: @escaping @Sendable (P, [any Error]) -> Void) { block = .willFinish(b) }
    init(didFinish b: @escaping @Sendable (P, [any Error]) -> Void) { block = .didFinish(b) }

    // The observer is only ever attached to (and called with) a procedure of type P, which
    // `ObservableProcedure`'s `Self` guarantees; `unsafeDowncast` checks that in debug builds.
    private func typed(_ procedure: Procedure) -> P {
        assertNoLibraryLockHeld("a block observer's closure")
        return unsafeDowncast(procedure, to: P.self)
    }

    func willExecute(_ procedure: Procedure) {
        if case .willExecute(let b) = block { b(typed(procedure)) }
    }
    func didExecute(_ procedure: Procedure) {
        if case .didExecute(let b) = block { b(typed(procedure)) }
    }
    func willCancel(_ procedure: Procedure, errors: [any Error]) {
        if case .willCancel(let b) = block { b(typed(procedure), errors) }
    }
    func didCancel(_ procedure: Procedure, errors: [any Error]) {
        if case .didCancel(let b) = block { b(typed(procedure), errors) }
    }
    func procedure(_ procedure: Procedure, willAdd operation: Operation) {
        if case .willAdd(let b) = block { b(typed(procedure), operation) }
    }
    func procedure(_ procedure: Procedure, didAdd operation: Operation) {
        if case .didAdd(let b) = block { b(typed(procedure), operation) }
    }
    func willFinish(_ procedure: Procedure, errors: [any Error]) {
        if case .willFinish(let b) = block { b(typed(procedure), errors) }
    }
    func didFinish(_ procedure: Procedure, errors: [any Error]) {
        if case .didFinish(let b) = block { b(typed(procedure), errors) }
    }
}
