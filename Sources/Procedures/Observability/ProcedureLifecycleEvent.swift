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

/// Who a procedure is, for logs, profiles and traces: a stable number, its name, the group it is
/// a child of and the procedure that produced it.
public struct ProcedureIdentity: Sendable, CustomStringConvertible {
    /// A procedure's number and name.
    public struct Reference: Sendable, Hashable, CustomStringConvertible {
        /// A number unique in the process, given the first time something asks.
        public let id: UInt64
        /// The procedure's name (its type's name if it has none).
        public let name: String
        /// `name#id`.
        public var description: String { "\(name)#\(id)" }
    }

    /// The procedure itself.
    public let procedure: Reference
    /// The group it is a child of, if any.
    public let parent: Reference?
    /// The procedure that produced it with `produce(_:)`, if any.
    public let producer: Reference?
    /// Kept only to find children of a followed group; weak, so events do not keep groups alive.
    weak var parentGroup: GroupProcedure?

    /// `name#id`, with ` in parent#id` when it has a group.
    public var description: String {
        parent.map { "\(procedure) in \($0)" } ?? procedure.description
    }

    /// What an event carries about its procedure.
    struct Snapshot {
        var identity: ProcedureIdentity
        var createdAt: UInt64?
        var dependencies: [Reference] = []
    }
}

/// Instrumentation data a procedure keeps, under its lock (all zero/nil while nothing listens).
/// Kept small (24 bytes) since every procedure carries it: the rarely set links live in a box.
struct InstrumentationFields {
    var id: UInt64 = 0
    var createdAt: UInt64 = 0
    var links: InstrumentationLinks?

    /// The links box, made on first write.
    mutating func withLinks<T>(_ body: (InstrumentationLinks) -> T) -> T {
        if let links { return body(links) }
        let made = InstrumentationLinks()
        links = made
        return body(made)
    }
}

/// A procedure's group and producer, as recorded when instrumentation was on (only touched
/// under the owning procedure's lock).
final class InstrumentationLinks {
    var parent: ProcedureIdentity.Reference?
    weak var parentGroup: GroupProcedure?
    var producer: ProcedureIdentity.Reference?
    /// The procedure's type name, for procedures without a name.
    var typeName: String?
    /// The raw value of the procedure's own log level (``ProcedureLogLevels/off`` for off),
    /// nil if it follows the process-wide one.
    var ownLogLevel: Int?
}
