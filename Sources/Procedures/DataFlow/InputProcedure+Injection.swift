import Foundation

extension InputProcedure {
    /// Makes `source` a dependency and, just before this procedure executes, sets ``input``
    /// to `transform` applied to `source`'s output.
    ///
    /// A `source` that failed, was cancelled or produced no output cancels this procedure as
    /// ``InputProcedure/injectResult(from:)-2hhe5`` does; an error `transform` throws cancels it with that error.
    /// `transform` runs among this procedure's callbacks, never at the same time as another.
    /// It returns this procedure.
    ///
    /// ```swift
    /// let count = TransformProcedure { (text: String) in text.count }
    /// count.injectResult(from: ResultProcedure { Data("hello".utf8) }) { data in
    ///     guard let text = String(data: data, encoding: .utf8) else { throw CocoaError(.fileReadCorruptFile) }
    ///     return text
    /// }
    /// ```
    @discardableResult
    public func injectResult<Source: OutputProcedure>(
        from source: Source,
        transform: @escaping @Sendable (Source.Output) throws -> Input
    ) -> Self {
        addDependency(source)
        addWillExecuteBlockObserver { procedure in
            switch InputInjection.value(from: source) {
            case .success(let value):
                do { procedure.input = try transform(value) } catch { procedure.cancel(withError: error) }
            case .failure(let error):
                InputInjection.cancel(procedure, withError: error, from: source)
            }
        }
        return self
    }

    /// Like ``InputProcedure/injectResult(from:)-2hhe5``, for a source whose output is optional: a `nil` output
    /// counts as no output, and cancels this procedure with
    /// ``ProcedureError/noOutput(name:)``. It returns this procedure.
    @discardableResult
    public func injectResult<Source: OutputProcedure>(from source: Source) -> Self where Source.Output == Input? {
        addDependency(source)
        addWillExecuteBlockObserver { procedure in
            switch InputInjection.value(from: source) {
            case .success(.some(let value)): procedure.input = value
            case .success(.none): procedure.cancel(withError: ProcedureError.noOutput(name: source.displayName))
            case .failure(let error): InputInjection.cancel(procedure, withError: error, from: source)
            }
        }
        return self
    }

    /// Gives `target` this procedure's input: just before `target` executes, its input is set
    /// to this procedure's, if this one has an input by then.
    ///
    /// It adds no dependency. Use it where `target` can only start after this procedure's
    /// input is set: a child of this group (a group sets its input, injected or not, before
    /// its children start), or a procedure that depends on this one.
    ///
    /// ```swift
    /// final class Greet: ResultGroupProcedure<String>, InputProcedure, @unchecked Sendable {
    ///     // @unchecked: `input` is set before the group executes and only read after.
    ///     var input: String?
    ///     init() {
    ///         let greet = TransformProcedure { (name: String) in "Hello, \(name)" }
    ///         super.init(operations: [greet])
    ///         bind(to: greet)
    ///         bind(from: greet)
    ///     }
    /// }
    /// ```
    public func bind<Target: InputProcedure>(to target: Target) where Target.Input == Input {
        target.addWillExecuteBlockObserver { [weak self] target in
            if let input = self?.input { target.input = input }
        }
    }
}

/// The value an injection reads from its source, and the cancel when there is none.
enum InputInjection {
    static func value<Source: OutputProcedure>(from source: Source) -> Result<Source.Output, ProcedureError> {
        let name = source.displayName
        let errors = source.errors
        if source.isCancelled { return .failure(.dependencyCancelled(name: name, errors: errors)) }
        if !errors.isEmpty { return .failure(.dependencyFailed(name: name, errors: errors)) }
        guard let output = source.output else { return .failure(.noOutput(name: name)) }
        return .success(output)
    }

    /// Cancels `consumer` with `error`, the reason `source` gave no value. A group that both
    /// are children of is told first when the error only repeats the source's own errors,
    /// which reach the group anyway (see `GroupProcedure.noteEcho`).
    static func cancel(_ consumer: Procedure, withError error: ProcedureError, from source: Procedure) {
        if error.repeatsErrorsOfItsSource,
            let group = consumer.enclosingGroup
        {
            group.noteEcho(error, of: consumer, from: source)
        }
        consumer.cancel(withError: error)
    }
}
