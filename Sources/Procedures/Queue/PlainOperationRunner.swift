import Foundation
import ProceduresSupport

/// Runs a plain `Operation` added to a ``ProcedureQueue`` or a ``GroupProcedure``: a
/// procedure that waits for the operation's dependencies, starts it on a slot of the owner's
/// scheduler (so plain operations and procedures share one width), and finishes when the
/// operation has. It is internal: the owner reports the plain operation, never the runner,
/// to delegates and observers.
final class PlainOperationRunner: Procedure, @unchecked Sendable {
    // @unchecked: `operation` is immutable (and itself Sendable).
    let operation: Operation

    init(_ operation: Operation) {
        self.operation = operation
        super.init(role: .operationRunner)
    }

    /// Makes the operation's dependencies the runner's (procedures are followed by the
    /// library, plain operations through their completion). Called by the owner once it has
    /// added what the operation must wait for (a pending barrier), right before claiming it.
    func adoptOperationDependencies() {
        addDependencies(operation.dependencies)
    }

    override var displayName: String {
        assertNoLibraryLockHeld("a plain operation's name (read for displayName)")
        return operation.name ?? String(describing: type(of: operation))
    }

    /// The operation's own priority: the scheduler reads it when the runner becomes ready, so
    /// a plain operation is ordered among ready work like a procedure, by its `queuePriority`
    /// at that moment.
    override var queuePriority: Operation.QueuePriority {
        get { operation.queuePriority }
        set { operation.queuePriority = newValue }
    }

    override func execute() {
        runOperation()
    }

    /// Started while cancelled (by ``ProcedureQueue/cancelAllOperations()``, which cancels
    /// the operation too): Foundation still starts a cancelled operation, which then finishes
    /// at once, so that whoever waits for it goes on.
    override func respond(to moment: BuiltInMoment) -> BuiltInResponse {
        guard case .startedWhileCancelled = moment else { return super.respond(to: moment) }
        runOperation()
        return .handled
    }

    private func runOperation() {
        // Watched before it starts: an asynchronous operation may finish on another thread
        // at any moment after `start()`.
        PlainOperationWatch.whenFinished(operation) { [self] in finishAutomatically() }
        assertNoLibraryLockHeld("a plain operation's start()")
        operation.start()
    }
}
