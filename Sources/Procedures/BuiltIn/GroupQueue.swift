import Foundation

/// What ``ProcedureQueue/current`` answers inside a group's child: a queue whose operations
/// become the group's children. A barrier block added to it runs once the children added
/// before it have finished, and the group waits for it; children added after it do not wait
/// for it. A group runs its children on its own scheduler and makes this
/// queue only when a child asks for it, so most groups never pay for a Foundation queue.
final class GroupQueue: ProcedureQueue, @unchecked Sendable {
    // @unchecked: `group` is immutable.
    private weak var group: GroupProcedure?

    init(group: GroupProcedure) {
        self.group = group
        super.init()
        name = "GroupProcedure"
    }

    /// Makes `operation` a child of the group (or, once the group is gone, runs it here).
    override func addOperation(_ operation: Operation) {
        if let group { group.adoptChild(operation) } else { enqueue(operation) }
    }

    override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        // A barrier on a group's queue is a child like any other: the group waits for it, and
        // it waits for every child added before it. (Children added later do not wait for it:
        // they are the group's, and the group has no barrier of its own. Said in the docs.)
        guard let group else { return super.addBarrierBlock(barrier) }
        let procedure = BarrierProcedure(block: barrier)
        procedure.addDependencies(group.children.filter { !$0.isFinished })
        group.adoptChild(procedure)
    }
}
