import Foundation

/// One moment in a procedure's life, as seen by a ``ProcedureInstrument``.
///
/// Timestamps are monotonic nanoseconds (`DispatchTime.now().uptimeNanoseconds`); `thread` is a
/// small number per thread (1, 2, 3… in order of first use).
public struct ProcedureLifecycleEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        /// A queue (or a group) took the procedure, or it was started by hand. It now waits for
        /// its dependencies.
        case enqueued
        /// Its dependencies have finished (or it was cancelled): it is handed over to run.
        case ready
        /// Its queue started it, on this thread.
        case started
        /// `execute()` is about to be called, on this thread.
        case executing
        /// `execute()` returned (the procedure may still be running asynchronously).
        case executed
        /// The procedure was cancelled with these errors.
        case cancelled(errors: [any Error])
        /// The procedure finished with these errors; `cancelled` tells whether it had been
        /// cancelled.
        case finished(errors: [any Error], cancelled: Bool)
        /// The procedure is about to add `operation` to its queue with `produce(_:)`.
        case willProduce(Operation)
    }

    /// What happened.
    public let kind: Kind
    /// The procedure it happened to.
    public let procedure: Procedure
    /// Who the procedure is, its group and its producer.
    public let identity: ProcedureIdentity
    /// When it happened, in monotonic nanoseconds.
    public let timestamp: UInt64
    /// The thread it happened on (a small number per thread).
    public let thread: UInt64
    /// For ``Kind/enqueued``: when the procedure was created, in monotonic nanoseconds, if
    /// instrumentation was already on then.
    public let createdAt: UInt64?
    /// For ``Kind/enqueued``: the procedures it waits for.
    public let dependencies: [ProcedureIdentity.Reference]

    init(kind: Kind, procedure: Procedure, info: ProcedureIdentity.Snapshot, timestamp: UInt64, thread: UInt64) {
        self.kind = kind
        self.procedure = procedure
        self.identity = info.identity
        self.timestamp = timestamp
        self.thread = thread
        self.createdAt = info.createdAt
        self.dependencies = info.dependencies
    }

    /// The group the procedure is a child of, while it is running.
    var parentGroup: GroupProcedure? { identity.parentGroup }
}
