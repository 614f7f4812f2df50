import Foundation

/// Receives the lifecycle events of the procedures it is attached to: the common ground of the
/// library's log, ``ProcedureProfiler`` and the ecosystem adapters in `Integrations/`.
///
/// Attach one with ``ProcedureInstrumentation/attach(_:to:)-(_,ProcedureQueue)`` (everything
/// added to a queue, group children included), ``ProcedureInstrumentation/attach(_:to:)-(_,Procedure)``
/// (one procedure, its children and what it produces) or ``ProcedureInstrumentation/attach(_:)``
/// (every procedure in the process).
///
/// `record(_:)` is called on the thread of the event, with no library lock held, possibly on
/// several threads at once: keep it short and thread-safe. A slow instrument slows the
/// procedures it observes (it never deadlocks them); hand heavy work to a queue of your own.
public protocol ProcedureInstrument: AnyObject, Sendable {
    /// One event of an observed procedure.
    func record(_ event: ProcedureLifecycleEvent)
}
