import Foundation

/// Receives the events of the procedures it is attached to.
///
/// Every method has a default that does nothing, so an observer implements only what it
/// needs. Observers of one procedure are called one at a time, in the order they were added,
/// never at the same time as any other callback of that procedure (its `execute()`, its
/// `procedure…` overrides, its other observers). They may call `cancel()` or `finish()` on
/// the procedure: the request is handled right after the current callback returns.
///
/// Attach one with ``Procedure/addObserver(_:)``, or use the block forms such as
/// ``ObservableProcedure/addDidFinishBlockObserver(_:)``.
public protocol ProcedureObserver: Sendable {
    /// Before `execute()` is called. Cancelling or finishing here skips `execute()`.
    func willExecute(_ procedure: Procedure)
    /// After `execute()` returns (the procedure may still be running asynchronously).
    func didExecute(_ procedure: Procedure)
    /// The procedure was cancelled (`isCancelled` is already true); before
    /// `procedureDidCancel(withErrors:)`. Runs at most once, and never for a procedure that has
    /// begun finishing.
    func willCancel(_ procedure: Procedure, errors: [any Error])
    /// After the will-cancel hooks and `procedureDidCancel(withErrors:)` ran.
    func didCancel(_ procedure: Procedure, errors: [any Error])
    /// Before an operation made by ``Procedure/produce(_:)`` is added to the queue, or, for a
    /// ``GroupProcedure``, before a child is added (see there for when children are reported).
    func procedure(_ procedure: Procedure, willAdd operation: Operation)
    /// After an operation made by ``Procedure/produce(_:)`` was added to the queue, or a
    /// ``GroupProcedure``'s child was added.
    func procedure(_ procedure: Procedure, didAdd operation: Operation)
    /// The procedure is finishing with these errors; `isFinished` is still false.
    func willFinish(_ procedure: Procedure, errors: [any Error])
    /// The procedure finished: `isFinished` is true and its dependents may already be running.
    /// An observer added after the procedure finished gets this call too, once.
    func didFinish(_ procedure: Procedure, errors: [any Error])
}

extension ProcedureObserver {
    // Defaults: every event is optional to observe.

    /// Does nothing; implement it to observe this event.
    public func willExecute(_ procedure: Procedure) {}
    /// Does nothing; implement it to observe this event.
    public func didExecute(_ procedure: Procedure) {}
    /// Does nothing; implement it to observe this event.
    public func willCancel(_ procedure: Procedure, errors: [any Error]) {}
    /// Does nothing; implement it to observe this event.
    public func didCancel(_ procedure: Procedure, errors: [any Error]) {}
    /// Does nothing; implement it to observe this event.
    public func procedure(_ procedure: Procedure, willAdd operation: Operation) {}
    /// Does nothing; implement it to observe this event.
    public func procedure(_ procedure: Procedure, didAdd operation: Operation) {}
    /// Does nothing; implement it to observe this event.
    public func willFinish(_ procedure: Procedure, errors: [any Error]) {}
    /// Does nothing; implement it to observe this event.
    public func didFinish(_ procedure: Procedure, errors: [any Error]) {}
}
