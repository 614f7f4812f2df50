import Foundation

/// A group that runs one child procedure per element of its input array, at most `width` at
/// a time, and outputs their outputs in the input's order.
///
/// ```swift
/// let sizes = BatchProcedure(input: urls, width: 4) { url in try Data(contentsOf: url).count }
/// sizes.injectResult(from: listing)          // or give the input directly
/// let counts = try await queue.future(sizes).value   // [Int], in the order of the urls
/// ```
///
/// Children are made as they start (never more than `width` exist unfinished at once), by
/// the closure you give: a synchronous or `async` transform of the element (a
/// ``TransformProcedure`` each), or any ``OutputProcedure`` you make from the element.
///
/// **Failures.** A child's errors are the batch's errors (the batch fails; ``output`` is nil
/// and ``partialOutput`` holds the outputs of the children that succeeded). With
/// ``FailurePolicy/runRemaining`` (the default) the other elements still run, so every
/// element's errors are reported; with ``FailurePolicy/cancelRemaining`` the first failure
/// cancels the running children (without errors of their own) and starts no more.
///
/// **Cancellation.** Cancelling the batch cancels its running children and starts no more;
/// it finishes, cancelled, once they have. ``partialOutput`` then holds one entry per input
/// element: the output of each child that had succeeded, nil for the others.
///
/// A batch with no input is cancelled with ``ProcedureError/missingInput(name:)``. The cost is
/// O(1) per element; the group keeps every child it ran in ``GroupProcedure/children``.
public final class BatchProcedure<Element: Sendable, Output: Sendable>: ResultGroupProcedure<[Output]>, InputProcedure,
    PartialOutputProcedure, @unchecked Sendable
{
    // @unchecked: `batch` is guarded by `batchLock`; `input` is written before execute()
    // (directly, or by the injection's will-execute observer) and read by execute(); the
    // other stored properties are immutable.

    /// What a failing element does to the others.
    public enum FailurePolicy: Sendable {
        /// The other elements run to the end; the batch reports every failure (the default).
        case runRemaining
        /// The first failure cancels the running elements and starts no more.
        case cancelRemaining
    }

    private struct State {
        var elements: [Element] = []
        var outputs: [Output?] = []
        var next = 0
        var started = false
        var stopped = false
        var running: [Int: Procedure] = [:]
        var partial: [Output?]?
    }

    private let width: Int
    private let policy: FailurePolicy
    private let makeChild: @Sendable (Element) -> any OutputProcedure<Output>
    private let batchLock = Lock()
    private var batch = State()

    /// The elements; set it directly or inject it.
    public var input: [Element]?

    /// A batch whose child for each element is the procedure `makeChild` returns.
    ///
    /// - Parameters:
    ///   - input: the elements, unless injected.
    ///   - width: how many children run at once (at least 1; default: the number of cores).
    ///   - onFailure: what a failing element does to the others.
    ///   - makeChild: a new procedure for an element (never one already on a queue); it is
    ///     called when the element starts, on the thread of the child that finished before.
    public init(
        input: [Element]? = nil,
        width: Int = ProcessInfo.processInfo.activeProcessorCount,
        onFailure: FailurePolicy = .runRemaining,
        makeChild: @escaping @Sendable (Element) -> any OutputProcedure<Output>
    ) {
        self.input = input
        self.width = max(width, 1)
        self.policy = onFailure
        self.makeChild = makeChild
        super.init()
        if width < 1 {
            ProcedureMisuse.report(
                .invalidWidth, "BatchProcedure(width: \(width)): a batch runs at least one element at a time; it uses 1.",
                subject: self)
        }
    }

    /// A batch that transforms each element with `transform` (a ``TransformProcedure`` each).
    public convenience init(
        input: [Element]? = nil,
        width: Int = ProcessInfo.processInfo.activeProcessorCount,
        onFailure: FailurePolicy = .runRemaining,
        _ transform: @escaping @Sendable (Element) throws -> Output
    ) {
        self.init(input: input, width: width, onFailure: onFailure) { element in
            TransformProcedure(input: element, transform)
        }
    }

    /// A batch that runs `operation` on each element in a `Task` (an `async`
    /// ``TransformProcedure`` each); cancelling the batch cancels the running tasks.
    public convenience init(
        input: [Element]? = nil,
        width: Int = ProcessInfo.processInfo.activeProcessorCount,
        onFailure: FailurePolicy = .runRemaining,
        operation: @escaping @Sendable (Element) async throws -> Output
    ) {
        self.init(input: input, width: width, onFailure: onFailure) { element in
            TransformProcedure(input: element, operation: operation)
        }
    }

    /// The outputs of the children that succeeded, in input order (nil for the others), for a
    /// batch that failed or was cancelled, once it finished.
    public var partialOutput: [Output?]? { batchLock.withLock { batch.partial } }

    /// Starts the first `width` elements.
    public override func execute() {
        guard let elements = input else {
            cancel(withError: ProcedureError.missingInput(name: displayName))
            super.execute()
            return
        }
        batchLock.withLock {
            batch.started = true
            batch.elements = elements
            batch.outputs = Array(repeating: nil, count: elements.count)
        }
        for _ in 0..<min(width, elements.count) { startNext() }
        super.execute()
    }

    private func startNext() {
        let claimed = batchLock.withLock { () -> (Int, Element)? in
            // The request, not `isCancelled`: no element starts once a cancel is asked for.
            guard !batch.stopped, batch.next < batch.elements.count, cancelRequest == nil else { return nil }
            defer { batch.next += 1 }
            return (batch.next, batch.elements[batch.next])
        }
        guard let (index, element) = claimed else { return }
        let child = makeChild(element)
        let procedure: Procedure = child
        batchLock.withLock { batch.running[index] = procedure }
        procedure.addDidFinishBlockObserver { [weak self] procedure, errors in
            self?.childFinished(index, output: errors.isEmpty && !procedure.isCancelled ? child.output : nil, errors: errors)
        }
        addChild(procedure)
    }

    private func childFinished(_ index: Int, output: Output?, errors: [any Error]) {
        let cancelled = batchLock.withLock { () -> [Procedure] in
            batch.running[index] = nil
            batch.outputs[index] = output
            guard !errors.isEmpty, policy == .cancelRemaining, !batch.stopped else { return [] }
            batch.stopped = true
            return Array(batch.running.values)
        }
        // Cancelled outside the lock, and still within this child's did-finish observers, so
        // the group cannot finish before they are.
        for child in cancelled { child.cancel() }
        startNext()
    }

    /// Sets the output (or the partial output).
    public override func procedureWillFinish(withErrors errors: [any Error]) {
        let succeeded = errors.isEmpty && !isCancelled
        let elementCount = input?.count ?? 0
        let complete = batchLock.withLock { () -> [Output]? in
            // A batch that never executed (cancelled first) has a slot per element too.
            let outputs = batch.started ? batch.outputs : Array(repeating: nil, count: elementCount)
            batch.outputs = []
            batch.elements = []
            batch.running = [:]
            if succeeded, batch.next == outputs.count {
                let complete = outputs.compactMap { $0 }
                if complete.count == outputs.count { return complete }
            }
            batch.partial = outputs
            return nil
        }
        if let complete { setOutput(complete) }
        super.procedureWillFinish(withErrors: errors)
    }
}
