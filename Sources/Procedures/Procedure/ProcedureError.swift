/// Errors the library itself puts on procedures.
public enum ProcedureError: Error, Sendable, CustomStringConvertible {
    /// The procedure's ``GroupProcedure`` (or another parent) was cancelled with these errors.
    case parentCancelled(errors: [any Error])
    /// The procedure was part of a dependency cycle, named in dependency order, and was
    /// cancelled so that it (and everything waiting on it) can finish.
    case dependencyCycle(names: [String])
    /// `produce(_:)` was called while the procedure was not running on a queue.
    case produceRequiresRunningProcedure

    public var description: String {
        switch self {
        case .parentCancelled(let errors):
            return "parent cancelled with \(errors.count) error(s): \(errors)"
        case .dependencyCycle(let names):
            return "dependency cycle: \(names.joined(separator: " -> "))"
        case .produceRequiresRunningProcedure:
            return "produce(_:) needs a procedure that is running on a queue"
        }
    }
}
