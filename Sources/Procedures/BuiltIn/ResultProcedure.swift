import Foundation
import ProceduresSupport

/// A procedure that produces a value of type `Output`.
///
/// Use it with a closure that returns the value, synchronously or `async`:
///
/// ```swift
/// let answer = ResultProcedure { 6 * 7 }
/// let page = ResultProcedure { try await client.fetchPage() }
/// ```
///
/// or subclass it, override `execute()`, and finish with ``finish(withOutput:)``. The
/// `async` form runs its closure in a `Task` and cancels that task when the procedure is
/// cancelled; the closure sees `Task.isCancelled` and a `CancellationError` it throws then
/// finishes the procedure as cancelled.
open class ResultProcedure<Output: Sendable>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked: `storedOutput` and `task` are guarded by `outputLock`; `body` is immutable.
    private enum Body {
        case subclass
        case synchronous(@Sendable () throws -> Output)
        case synchronousWithProcedure(@Sendable (ResultProcedure<Output>) throws -> Output)
        case asynchronous(@Sendable () async throws -> Output)
    }
    private let body: Body
    private let outputLock = InlineLock()
    private var storedOutput: Output?
    private var task: Task<Void, Never>?

    /// For subclasses, which override `execute()` and call ``finish(withOutput:)``.
    public override init() {
        body = .subclass
        super.init()
    }

    /// Runs `block` and finishes with the value it returns, or the error it throws.
    public init(block: @escaping @Sendable () throws -> Output) {
        body = .synchronous(block)
        super.init()
    }

    /// Runs `block` with this procedure (to look at `isCancelled`, or to log through it) and
    /// finishes with the value it returns, or the error it throws.
    ///
    /// ```swift
    /// let greeting = ResultProcedure<String> { procedure in
    ///     procedure.log.debug("greeting")
    ///     return "Hello World"
    /// }
    /// ```
    public init(block: @escaping @Sendable (ResultProcedure<Output>) throws -> Output) {
        body = .synchronousWithProcedure(block)
        super.init()
    }

    /// Runs `operation` in a `Task` and finishes with the value it returns, or the error it
    /// throws. Cancelling the procedure cancels the task.
    public init(operation: @escaping @Sendable () async throws -> Output) {
        body = .asynchronous(operation)
        super.init()
    }

    /// The value, once finished without errors.
    public final var output: Output? { outputLock.withLock { storedOutput } }

    /// Stores `value` as the output and finishes. Only the first finish counts.
    public final func finish(withOutput value: Output) {
        // Stored only by the finish that wins, in the same step that decides it, so a second
        // (ignored) finish can never replace the output of the first.
        let accepted = requestFinish(errors: []) {
            outputLock.withLock { storedOutput = value }  // lock order: procedure, then output
        }
        if !accepted { reportSecondFinish() }
    }

    /// Runs the closure (subclasses override this and call ``finish(withOutput:)``).
    open override func execute() {
        switch body {
        case .subclass:
            finish()
        case .synchronous(let block):
            do { finish(withOutput: try block()) } catch { finish(withError: error) }
        case .synchronousWithProcedure(let block):
            do { finish(withOutput: try block(self)) } catch { finish(withError: error) }
        case .asynchronous(let operation):
            runTask(operation)
        }
    }

    /// Runs `operation` in a `Task` that a cancel of this procedure cancels, and finishes with
    /// its value or error (a `CancellationError` after a cancel finishes it as cancelled).
    final func runTask(_ operation: @escaping @Sendable () async throws -> Output) {
        let task = Task { [self] in
            do {
                finish(withOutput: try await operation())
            } catch {
                finish(withError: error is CancellationError && isCancelled ? nil : error)
            }
        }
        outputLock.withLock { self.task = task }
        // A cancel that came before the task was stored found nothing to cancel.
        if isCancelled { task.cancel() }
    }

    /// Cancels the `async` closure's task, if any. Overrides must call `super`.
    open override func procedureDidCancel(withErrors errors: [any Error]) {
        outputLock.withLock { task }?.cancel()
    }

    /// Clears the output of a procedure that did not succeed. Overrides must call `super`.
    open override func procedureDidFinish(withErrors errors: [any Error]) {
        let cancelled = isCancelled  // read first: never take the procedure's lock inside ours
        outputLock.withLock {
            task = nil
            // A value stored by a finish that lost (to a cancel) is not an output.
            if !errors.isEmpty || cancelled { storedOutput = nil }
        }
    }
}
