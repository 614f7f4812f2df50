import Foundation

/// What a procedure is to the code that handles every procedure alike (owners, the wait-for
/// graph, progress, instruments, waiting reports).
///
/// Each built-in that this code treats apart answers it once, by overriding
/// ``Procedure/role``; the code asks the role instead of testing classes, so a new built-in
/// says what it is in one place, and one virtual read replaces a dynamic cast.
enum ProcedureRole {
    /// Handled like any other procedure: the user's, and most built-ins.
    case ordinary
    /// Stands for a plain `Operation` added to a queue or a group: its owner tracks the
    /// operation and tells delegates and observers about it, never about the runner.
    case operationRunner(PlainOperationRunner)
    /// A queue's barrier: internal, so delegates and waiting reports leave it out; it depends
    /// on everything added before it, so a cycle search rarely needs to pass through it.
    case barrier
    /// A group: while it runs it waits for its children, its progress counts them, and
    /// instruments and dependency graphs show them.
    case group(GroupProcedure)

    /// The plain operation an owner reports in place of the procedure, if it runs one.
    var reportedOperation: Operation? {
        guard case .operationRunner(let runner) = self else { return nil }
        return runner.operation
    }
}

extension Procedure {
    /// The procedures this one waits for while it runs, for the wait-for graph: a group's
    /// unfinished children. None for any other role.
    var waitedForWhileRunning: [Procedure] {
        guard case .group(let group) = role else { return [] }
        return group.unfinishedChildren
    }
}
