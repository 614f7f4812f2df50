import Foundation

/// A procedure that turns an input into an output with a closure; pair it with
/// ``InputProcedure/injectResult(from:)-2hhe5``.
///
/// ```swift
/// let double = TransformProcedure { (x: Int) in x * 2 }
/// double.injectResult(from: ResultProcedure { 21 })
/// ```
public final class TransformProcedure<Input: Sendable, Output: Sendable>: ResultProcedure<Output>, InputProcedure,
    @unchecked Sendable
{
    // @unchecked: `input` is written before execute() (directly, or by the injection's
    // will-execute observer) and read by execute(), callbacks of this procedure, which never
    // overlap; `transform` is immutable.
    private enum Transform {
        case synchronous(@Sendable (Input) throws -> Output)
        case asynchronous(@Sendable (Input) async throws -> Output)
    }
    private let transform: Transform

    /// The input; set it directly or inject it.
    public var input: Input?

    /// A procedure that finishes with `transform(input)`.
    public init(input: Input? = nil, _ transform: @escaping @Sendable (Input) throws -> Output) {
        self.input = input
        self.transform = .synchronous(transform)
        super.init()
    }

    /// A procedure that runs `operation(input)` in a `Task` and finishes with the value it
    /// returns, or the error it throws. Cancelling the procedure cancels the task; a
    /// `CancellationError` thrown then finishes the procedure as cancelled.
    ///
    /// ```swift
    /// let fetch = TransformProcedure(operation: { (url: URL) in try await download(url) })
    /// ```
    public init(input: Input? = nil, operation: @escaping @Sendable (Input) async throws -> Output) {
        self.input = input
        self.transform = .asynchronous(operation)
        super.init()
    }

    /// Transforms the input, or fails if there is none.
    public override func execute() {
        switch transform {
        case .synchronous(let transform):
            finish(transforming: input, with: transform)
        case .asynchronous(let operation):
            guard let input else { return finish(withError: ProcedureError.missingInput(name: displayName)) }
            runTask { try await operation(input) }
        }
    }
}

extension ResultProcedure {
    /// The `execute()` of a procedure that turns its input into its output
    /// (``TransformProcedure``, ``EncodeJSONProcedure``, ``DecodeJSONProcedure``): finishes with
    /// `transform(input)` or the error it throws, or, with no input, with
    /// ``ProcedureError/missingInput(name:)``.
    final func finish<Input>(transforming input: Input?, with transform: (Input) throws -> Output) {
        guard let input else { return finish(withError: ProcedureError.missingInput(name: displayName)) }
        do { finish(withOutput: try transform(input)) } catch { finish(withError: error) }
    }
}
