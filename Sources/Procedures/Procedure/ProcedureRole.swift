import Foundation

/// What a procedure is to the code that handles every procedure alike (owners, the wait-for
/// graph, progress, instruments, waiting reports).
///
/// Each built-in that this code treats apart passes its role to `Procedure.init(role:)`, once;
/// the code reads ``Procedure/role`` instead of testing classes. The role is stored, so reading
/// it costs one load, no more than the class test it replaces.
enum ProcedureRole: UInt8, Sendable {
    /// Handled like any other procedure: the user's, and most built-ins.
    case ordinary
    /// A ``PlainOperationRunner``: it stands for a plain `Operation` added to a queue or a
    /// group, whose owner tracks the operation and tells delegates and observers about it,
    /// never about the runner.
    case operationRunner
    /// A ``BarrierProcedure``: internal, so delegates and waiting reports leave it out; it
    /// depends on everything added before it, so a cycle search rarely needs to pass through it.
    case barrier
    /// A ``GroupProcedure``: while it runs it waits for its children, its progress counts them,
    /// and instruments and dependency graphs show them.
    case group
}

extension Procedure {
    /// This procedure as the group its role says it is; nil for any other role.
    @inline(__always)
    var asGroup: GroupProcedure? {
        role == .group ? unsafeDowncast(self, to: GroupProcedure.self) : nil
    }

    /// This procedure as the plain operation's runner its role says it is; nil for any other role.
    @inline(__always)
    var asOperationRunner: PlainOperationRunner? {
        role == .operationRunner ? unsafeDowncast(self, to: PlainOperationRunner.self) : nil
    }

    /// What an owner reports in place of this procedure: the plain operation a runner runs,
    /// else the procedure itself.
    var reportedOperation: Operation {
        asOperationRunner?.operation ?? self
    }

    /// The procedures this one waits for while it runs, for the wait-for graph: a group's
    /// unfinished children, once it has started them. None for any other role.
    var waitedForWhileRunning: [Procedure] {
        asGroup?.childrenWaitedFor ?? []
    }
}
