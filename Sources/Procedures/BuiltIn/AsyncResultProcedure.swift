import Foundation

/// A procedure whose block starts callback-style work and finishes the procedure later, with
/// a result, by calling the closure it is given: ProcedureKit's `AsyncResultProcedure`.
///
/// ```swift
/// let lookup = AsyncResultProcedure<[String]> { finish in
///     resolver.lookUp("example.com") { addresses, error in
///         finish(error.map { .failure($0) } ?? .success(addresses))
///     }
/// }
/// ```
///
/// Use it to wrap an API that answers through a completion handler. For `async` code,
/// ``ResultProcedure/init(operation:)`` is simpler, and cancels its `Task` for you.
///
/// The block runs in `execute()`. The `finish` closure may be called from any thread, once;
/// a second call is ignored and reported to ``ProcedureMisuse`` as
/// ``ProcedureMisuse/Kind/finishedTwice``. The procedure does not finish until it is called
/// (or ``finish(withResult:)``, ``ResultProcedure/finish(withOutput:)`` or
/// ``Procedure/finish(withError:)`` is), even if it is cancelled: to stop the work on a
/// cancel, add a did-cancel observer that stops it and finishes the procedure.
///
/// ```swift
/// lookup.addDidCancelBlockObserver { lookup, _ in
///     resolver.cancelAll()
///     lookup.finish()   // finishes cancelled, without an output
/// }
/// ```
open class AsyncResultProcedure<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    // @unchecked: `block` is immutable; the rest is ResultProcedure's (see there).

    /// Delivers the result that finishes the procedure.
    public typealias Finish = @Sendable (Result<Output, any Error>) -> Void

    private let block: @Sendable (@escaping Finish) -> Void

    /// A procedure that runs `block` and finishes when `block` (or the work it started)
    /// calls the closure it was given, with the output or an error.
    public init(block: @escaping @Sendable (_ finish: @escaping Finish) -> Void) {
        self.block = block
        super.init()
    }

    /// Finishes with the value of a success, or with the error of a failure. Only the first
    /// finish counts.
    public final func finish(withResult result: Result<Output, any Error>) {
        switch result {
        case .success(let value): finish(withOutput: value)
        case .failure(let error): finish(withError: error)
        }
    }

    /// Runs the block; it must lead to exactly one finish.
    open override func execute() {
        // The closure holds the procedure until it is called: a procedure whose work is still
        // out must stay alive to be finished.
        block { [self] result in finish(withResult: result) }
    }
}
