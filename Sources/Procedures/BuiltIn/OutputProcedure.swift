import Foundation

/// A procedure that produces a value when it succeeds.
///
/// ``ResultProcedure`` is the usual way to get one; conform your own procedure classes (a
/// ``GroupProcedure`` subclass that assembles a result, say) by storing the value before
/// finishing. Procedures that do not conform produce `Void`.
public protocol OutputProcedure<Output>: Procedure {
    /// What the procedure produces.
    associatedtype Output: Sendable
    /// The value, once the procedure has finished without errors; nil before, or after a
    /// failure or a cancellation.
    var output: Output? { get }
}

/// A procedure that takes a value before it executes, typically from another procedure's
/// output through ``InputProcedure/injectResult(from:)-2hhe5``.
public protocol InputProcedure<Input>: Procedure {
    /// What the procedure takes.
    associatedtype Input: Sendable
    /// The value; set before the procedure executes.
    var input: Input? { get set }
}

extension InputProcedure {
    /// Makes `source` a dependency and, just before this procedure executes, sets ``input``
    /// to `source`'s output.
    ///
    /// If `source` failed, was cancelled, or finished without an output, this procedure is
    /// cancelled instead, with ``ProcedureError/dependencyFailed(name:errors:)``,
    /// ``ProcedureError/dependencyCancelled(name:errors:)`` or
    /// ``ProcedureError/noOutput(name:)``, so it never executes with a
    /// missing input. `source` may already have finished. Call it before adding this
    /// procedure to a queue, like any dependency. It returns this procedure, so that a
    /// procedure can be made and wired in one expression:
    ///
    /// ```swift
    /// let fetch = ResultProcedure { try loadConfiguration() }
    /// let parse = TransformProcedure { (data: Data) in try Config(parsing: data) }.injectResult(from: fetch)
    /// queue.addOperations([fetch, parse], waitUntilFinished: false)
    /// ```
    @discardableResult
    public func injectResult<Source: OutputProcedure>(from source: Source) -> Self where Source.Output == Input {
        addDependency(source)
        addWillExecuteBlockObserver { procedure in
            // Runs among this procedure's callbacks, before execute(): the input is written
            // where nothing else of this procedure runs concurrently.
            switch InputInjection.value(from: source) {
            case .success(let value): procedure.input = value
            case .failure(let error): InputInjection.cancel(procedure, withError: error, from: source)
            }
        }
        return self
    }
}
