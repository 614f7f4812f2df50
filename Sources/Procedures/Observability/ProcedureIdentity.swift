import Foundation

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
