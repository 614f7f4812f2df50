import Foundation

/// A group's private queue: whatever is added to it becomes the group's child.
///
/// Children reach it through ``GroupProcedure/addChild(_:)``, through `produce` (a child's
/// queue is this one), or through code that adds to `OperationQueue.current` from inside a
/// child. Each path ends in the group's adoption step, which counts the child before the
/// queue tracks it, so the group cannot finish before it.
final class GroupQueue: ProcedureQueue, @unchecked Sendable {
    // @unchecked: `group` is set once, by the group's initialiser, before the queue is shared.
    weak var group: GroupProcedure?

    override init() {
        super.init()
        name = "GroupProcedure"
        isSuspended = true
    }

    override func accept(_ operation: Operation) {
        if let group { group.adoptChild(operation) } else { enqueue(operation) }
    }

    override func acceptBarrier(_ barrier: Procedure) {
        // A barrier on a group's queue is a child like any other: the group waits for it.
        if let group { group.adoptChild(barrier) } else { super.acceptBarrier(barrier) }
    }

    override func didFinish(_ procedure: Procedure, errors: [any Error]) {
        group?.childDidFinish(procedure, errors: errors)
    }
}
