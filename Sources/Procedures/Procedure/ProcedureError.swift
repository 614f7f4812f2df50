import Foundation
import ProceduresSupport

/// Errors the library itself puts on procedures.
public enum ProcedureError: Error, Sendable, CustomStringConvertible {
    /// The procedure's ``GroupProcedure`` (or another parent) was cancelled with these errors.
    case parentCancelled(errors: [any Error])
    /// The procedure was part of a dependency cycle, named in dependency order, and was
    /// cancelled so that it (and everything waiting on it) can finish.
    case dependencyCycle(names: [String])
    /// `produce(_:)` was called while the procedure was not running on a queue.
    case produceRequiresRunningProcedure
    /// The procedure whose result was to be injected (named) finished with these errors.
    case dependencyFailed(name: String, errors: [any Error])
    /// The procedure whose result was to be injected (named) was cancelled.
    case dependencyCancelled(name: String, errors: [any Error])
    /// The procedure (named) finished without errors but without an output either: thrown
    /// when it is awaited or its output future is taken, and the cancel error of a procedure
    /// whose input was to be injected from it.
    case noOutput(name: String)
    /// A procedure failed with several errors; they are all here, in order.
    case multiple(errors: [any Error])
    /// The procedure (named) needs an input and executed without one (a
    /// ``TransformProcedure`` whose input was neither set nor injected).
    case missingInput(name: String)
    /// The procedure's condition (named) failed with `error`; the procedure was cancelled.
    /// For a compound condition the name is that of the condition inside it that failed.
    case conditionFailed(name: String, error: any Error)
    /// A ``TimeoutObserver`` cancelled the procedure: it had not finished this many seconds
    /// after it started executing.
    case timedOut(after: TimeInterval)
    /// The procedure would have waited for itself forever (`reason` says how: a category its
    /// enclosing group holds, or a condition whose dependency waits for it); it was cancelled
    /// instead, and the misuse reported as ``ProcedureMisuse/Kind/deadlock``.
    case deadlock(reason: String)

    /// The procedure whose result was to be injected (named) finished without an output.
    @available(*, deprecated, renamed: "noOutput(name:)", message: "one case now names a procedure that finished without an output")
    public static func dependencyProducedNoOutput(name: String) -> ProcedureError { .noOutput(name: name) }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .parentCancelled(let errors):
            return "parent cancelled with \(errors.count) error(s): \(errors)"
        case .dependencyCycle(let names):
            return "dependency cycle: \(names.joined(separator: " -> "))"
        case .produceRequiresRunningProcedure:
            return "produce(_:) needs a procedure that is running on a queue"
        case .dependencyFailed(let name, let errors):
            return "\(name) failed with \(errors)"
        case .dependencyCancelled(let name, let errors):
            return errors.isEmpty ? "\(name) was cancelled" : "\(name) was cancelled with \(errors)"
        case .noOutput(let name):
            return "\(name) finished without an output"
        case .multiple(let errors):
            return "\(errors.count) errors: \(errors)"
        case .missingInput(let name):
            return "\(name) executed without an input"
        case .conditionFailed(let name, let error):
            return "condition \(name) failed: \(error)"
        case .timedOut(let interval):
            return "timed out after \(DurationText.seconds(interval))"
        case .deadlock(let reason):
            return "deadlock: \(reason)"
        }
    }
}
