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
/// The child for each element is made by the closure you give: a synchronous or `async`
/// transform of the element (a ``TransformProcedure`` each), or, with `makeChild:`, any
/// ``OutputProcedure`` you make from the element. Children are made in input order as they
/// start: the first `width` when the batch executes, then one each time a child finishes, so
/// no more than `width` exist unfinished at once.
///
/// **Failures.** A child's errors are the batch's errors (the batch fails; ``output`` is nil
/// and ``partialOutput`` holds the outputs of the children that succeeded). With
/// ``FailurePolicy/runRemaining`` (the default) the other elements still run, so every
/// element's errors are reported; with ``FailurePolicy/cancelRemaining`` the first failure
/// cancels the running children (without errors of their own) and starts no more.
///
/// **Cancellation.** Cancelling the batch cancels its running children and starts no more; it
/// finishes, cancelled, once they have. ``partialOutput`` then holds one entry per input
/// element: the output of each child that had succeeded, nil for the others.
///
/// A batch with no input is cancelled with ``ProcedureError/missingInput(name:)``. The cost is
/// O(1) per element, and O(N) once at the finish; no step scans the children per child.
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
        /// The unfinished children, by identity, with their element's index.
        var running: [ObjectIdentifier: (index: Int, child: any OutputProcedure<Output>)] = [:]
        var partial: [Output?]?
    }

    private let width: Int
    private let policy: FailurePolicy
    private let makeChild: @Sendable (Element) -> any OutputProcedure<Output>
    private let batchLock = Lock()
    @exclusivity(unchecked) private var batch = State()  // only touched under `batchLock`

    /// The elements; set it directly or inject it.
    public var input: [Element]?

    /// A batch whose child for each element is the procedure `makeChild` returns.
    ///
    /// Write the `makeChild:` label: a trailing closure is taken as a transform (whose output
    /// would be the procedure itself).
    ///
    /// - Parameters:
    ///   - input: the elements, unless injected.
    ///   - width: how many children run at once (at least 1; default: the number of cores).
    ///   - onFailure: what a failing element does to the others.
    ///   - makeChild: a new procedure for an element (never one already on a queue or in a
    ///     group); called once per element, in order, as the element starts.
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
            batch.running.reserveCapacity(min(width, elements.count))
        }
        for _ in 0..<min(width, elements.count) { startNext() }
        super.execute()
    }

    private func startNext() {
        // The request, not `isCancelled`: no element starts once a cancel is asked for.
        guard cancelRequest == nil else { return }
        let claimed = batchLock.withLock { () -> (Int, Element)? in
            guard !batch.stopped, batch.next < batch.elements.count else { return nil }
            defer { batch.next += 1 }
            return (batch.next, batch.elements[batch.next])
        }
        guard let (index, element) = claimed else { return }
        let child = makeChild(element)
        batchLock.withLock { batch.running[ObjectIdentifier(child)] = (index, child) }
        addChild(child)
    }

    override func handleChildFinished(_ child: Operation, errors: [any Error]) {
        // Among the group's own callbacks, before the group counts the child done: the next
        // child is added, and the running ones cancelled, before the group can finish.
        if let entry = batchLock.withLock({ batch.running.removeValue(forKey: ObjectIdentifier(child)) }) {
            let failed = !errors.isEmpty
            // Read outside our lock: the output takes the child's own locks.
            let output = failed || child.isCancelled ? nil : entry.child.output
            let others = batchLock.withLock { () -> [any OutputProcedure<Output>] in
                batch.outputs[entry.index] = output
                guard failed, policy == .cancelRemaining, !batch.stopped else { return [] }
                batch.stopped = true
                return batch.running.values.map(\.child)
            }
            for other in others { other.cancel() }
            startNext()
        }
        super.handleChildFinished(child, errors: errors)
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
            if succeeded, batch.next == outputs.count, let complete = Self.unwrapped(outputs) { return complete }
            batch.partial = outputs
            return nil
        }
        if let complete { setOutput(complete) }
        super.procedureWillFinish(withErrors: errors)
    }

    private static func unwrapped(_ outputs: [Output?]) -> [Output]? {
        var complete: [Output] = []
        complete.reserveCapacity(outputs.count)
        for output in outputs {
            guard let output else { return nil }
            complete.append(output)
        }
        return complete
    }
}
