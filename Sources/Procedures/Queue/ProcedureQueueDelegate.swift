import Foundation

/// Told when a ``ProcedureQueue`` adds operations and when its procedures finish.
///
/// Every method has a default that does nothing. Guarantees: `willAdd` comes before the
/// operation can start; `willFinish` comes before `isFinished` becomes true, inside the
/// procedure's own (non-overlapping) callbacks; `didFinish` comes after the procedure's
/// did-finish observers. Calls for different
/// operations may arrive concurrently, on any thread. `didAdd` may arrive after the operation
/// has already started or even finished.
///
/// A plain `Operation` is reported through ``procedureQueue(_:didFinish:)`` once it finished
/// (and after its own `completionBlock`). The queue learns of it through the operation's
/// `completionBlock`, which it wraps when the operation is added while a delegate is set,
/// keeping the block you set: set yours before adding the operation, since one set
/// afterwards replaces the queue's.
public protocol ProcedureQueueDelegate: AnyObject, Sendable {
    /// `operation` is about to be added.
    func procedureQueue(_ queue: ProcedureQueue, willAdd operation: Operation)
    /// `operation` was added.
    func procedureQueue(_ queue: ProcedureQueue, didAdd operation: Operation)
    /// `procedure` is finishing with `errors`.
    func procedureQueue(_ queue: ProcedureQueue, willFinish procedure: Procedure, withErrors errors: [any Error])
    /// `procedure` finished with `errors`.
    func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error])
    /// A plain `Operation` (not a procedure) finished; its own `completionBlock` has run.
    func procedureQueue(_ queue: ProcedureQueue, didFinish operation: Operation)
}

extension ProcedureQueueDelegate {
    /// Does nothing; implement it to be told.
    public func procedureQueue(_ queue: ProcedureQueue, willAdd operation: Operation) {}
    /// Does nothing; implement it to be told.
    public func procedureQueue(_ queue: ProcedureQueue, didAdd operation: Operation) {}
    /// Does nothing; implement it to be told.
    public func procedureQueue(
        _ queue: ProcedureQueue, willFinish procedure: Procedure, withErrors errors: [any Error]
    ) {}
    /// Does nothing; implement it to be told.
    public func procedureQueue(
        _ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]
    ) {}
    /// Does nothing; implement it to be told.
    public func procedureQueue(_ queue: ProcedureQueue, didFinish operation: Operation) {}
}
