import Foundation
import ProceduresSupport

/// A procedure that combines the elements of its input, in order, into one value, like
/// `Sequence.reduce`.
///
/// ```swift
/// let total = ReduceProcedure(input: [1, 2, 3], 0) { $0 + $1 }
/// let words = ReduceProcedure(input: ["a", "b"], into: [String: Int]()) { $0[$1, default: 0] += 1 }
/// ```
///
/// The input is usually injected (``InputProcedure/injectResult(from:)-2hhe5``). A procedure with
/// no input fails with ``ProcedureError/missingInput(name:)``; an error the closure throws
/// fails it. A cancel stops it before the next element (the closure is never called again
/// once `cancel()` has returned), and it finishes as cancelled; its ``partialOutput`` is then
/// the accumulator so far, as it is after a failure (the value before the failing element).
///
/// Its ``Procedure/progress`` counts the elements folded, of the input's count.
///
/// ``MapProcedure``, ``FilterProcedure``, ``FlatMapProcedure`` and ``CompactMapProcedure``
/// are reductions too.
public class ReduceProcedure<Element: Sendable, Result: Sendable>: ResultProcedure<Result>, InputProcedure,
    PartialOutputProcedure, @unchecked Sendable
{
    // @unchecked: `input` is written before execute() (directly, or by the injection's
    // will-execute observer) and read by execute(); `partial` is guarded by `partialLock`;
    // `initialResult` and `update` are immutable.
    private let initialResult: Result
    private let update: @Sendable (inout Result, Element) throws -> Void
    private let partialLock = InlineLock()
    private var partial: Result?

    /// The elements to combine; set it directly or inject it.
    public var input: [Element]?

    /// Combines the input with `nextPartialResult`, starting from `initialResult`.
    public convenience init(
        input: [Element]? = nil,
        _ initialResult: Result,
        _ nextPartialResult: @escaping @Sendable (Result, Element) throws -> Result
    ) {
        self.init(input: input, into: initialResult) { result, element in
            result = try nextPartialResult(result, element)
        }
    }

    /// Combines the input by updating an accumulator that starts as `initialResult` (cheaper
    /// than returning a new value each time when the result is a collection).
    public init(
        input: [Element]? = nil,
        into initialResult: Result,
        _ updateAccumulatingResult: @escaping @Sendable (inout Result, Element) throws -> Void
    ) {
        self.input = input
        self.initialResult = initialResult
        self.update = updateAccumulatingResult
        super.init()
    }

    /// The accumulator of a reduction that was cancelled or failed, once it finished.
    public final var partialOutput: Result? { partialLock.withLock { partial } }

    /// Runs the reduction.
    public final override func execute() {
        guard let input else {
            finish(withError: ProcedureError.missingInput(name: displayName))
            return
        }
        var result = initialResult
        let total = Int64(input.count)
        for (index, element) in input.enumerated() {
            // The request, not `isCancelled`: a cancel takes effect only after execute()
            // returns, and the loop must stop as soon as one is asked for. The progress is
            // recorded in the same critical section (and given to its tracker, if it has one).
            let folded = ProgressUnits(completed: Int64(index), of: total)
            var tracker: ProgressTracker?
            let cancelRequested = lock.withLock { () -> Bool in
                if state.cancellation != .none { return true }
                tracker = recordProgressLocked(folded)
                return false
            }
            if cancelRequested {
                keepPartial(result)
                finish()
                return
            }
            tracker?.setUnits(completed: folded.completed, total: folded.total)
            do {
                try update(&result, element)
            } catch {
                keepPartial(result)
                finish(withError: error)
                return
            }
        }
        finish(withOutput: result)
    }

    private func keepPartial(_ result: Result) {
        partialLock.withLock { partial = result }
    }
}
