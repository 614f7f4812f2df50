import Foundation
import ProceduresSupport

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
/// ``OutputProcedure`` you make from the element. Children are made as elements start, in
/// input order: the first `width` when the batch executes, then one each time a child
/// finishes its work (on that child's thread), so no more than `width` run at once.
///
/// **Outputs.** Once the batch has finished, whatever the outcome, ``partialOutput`` holds one
/// entry per input element: the output of each child that succeeded, nil for the others. So
/// "how many were done" is `partialOutput?.compactMap { $0 }.count`, after a success, a
/// failure or a cancel alike. ``ResultGroupProcedure/output`` is the complete array, and only
/// after a success.
///
/// **Failures.** A child's errors are the batch's errors, each reported once (the batch fails;
/// its output is nil). With ``FailurePolicy/runRemaining`` (the default) the other elements
/// still run, so every element's errors are reported; with ``FailurePolicy/cancelRemaining``
/// the first failure cancels the running children (without errors of their own) and starts
/// no more.
///
/// **Cancellation.** Cancelling the batch cancels its running children and starts no more; it
/// finishes, cancelled, once they have.
///
/// **Progress** counts elements: ``Procedure/progress`` reads 3 of 10 once three elements
/// have finished (succeeded or failed).
///
/// A batch with no input is cancelled with ``ProcedureError/missingInput(name:)``. The cost is
/// O(1) per element, and O(N) once at the finish; no step scans the children per child.
public final class BatchProcedure<Element: Sendable, Output: Sendable>: ResultGroupProcedure<[Output]>, InputProcedure,
    PartialOutputProcedure, ProgressUnitsSource, @unchecked Sendable
{
    // @unchecked: `batch` is guarded by `batchLock`; `input` is written before execute()
    // (directly, or by the injection's will-execute observer) and read by execute(); the other
    // stored properties are immutable.
    //
    // What each element touches does not depend on `Element` or `Output` (`State`, an index,
    // a procedure): generic code here is not specialised for the caller's types, so every
    // value it builds whose layout does (a state holding `[Element]`, an `(Int, Element)`)
    // costs a runtime metadata lookup each time.

    /// How children are made: transforms (always `TransformProcedure<Element, Output>`), or
    /// any output procedure.
    private enum Maker {
        case transform(@Sendable (Element) -> Procedure)
        case custom(@Sendable (Element) -> any OutputProcedure<Output>)
    }

    /// What a failing element does to the others.
    public enum FailurePolicy: Sendable {
        /// The other elements run to the end; the batch reports every failure (the default).
        case runRemaining
        /// The first failure cancels the running elements and starts no more.
        case cancelRemaining
    }

    private struct State {
        /// The input, from execute() until the batch finishes.
        var elements: [Element] = []
        /// The children made so far, at their element's index.
        var made: [Procedure?] = []
        /// The same children with their output type, for children made by `makeChild:`
        /// (transform children are read as what they are, which costs less).
        var custom: [(any OutputProcedure<Output>)?] = []
        /// The outputs, once the batch has finished.
        var partial: [Output?]?
        /// Whether the child at each index has finished.
        var finished: [Bool] = []
        /// How many elements have been claimed (their children made or being made).
        var next = 0
        var stopped = false
        /// Set by execute(): the elements are its input's from then on.
        var started = false
        /// Its progress: how many elements there are, and how many have finished.
        var elementCount = 0
        var finishedElements = 0
    }

    private let width: Int
    private let policy: FailurePolicy
    private let maker: Maker
    private let batchLock = InlineLock()
    // Only touched under `batchLock` (a few accesses per element: the exclusivity check stays on).
    private var batch = State()

    /// The elements; set it directly or inject it. Until the batch executes, its progress
    /// counts them as its total (a batch whose input is not known yet has an unknown total).
    public var input: [Element]? {
        didSet { inputDidChange() }
    }

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
    public convenience init(
        input: [Element]? = nil,
        width: Int = ProcessInfo.processInfo.activeProcessorCount,
        onFailure: FailurePolicy = .runRemaining,
        makeChild: @escaping @Sendable (Element) -> any OutputProcedure<Output>
    ) {
        self.init(input: input, width: width, onFailure: onFailure, maker: .custom(makeChild))
    }

    private init(input: [Element]?, width: Int, onFailure: FailurePolicy, maker: Maker) {
        self.input = input
        self.width = max(width, 1)
        self.policy = onFailure
        self.maker = maker
        super.init()
        batch.elementCount = input?.count ?? 0
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
        // The type is looked up once here, not once per element: in generic code each lookup
        // costs as much as a small procedure.
        let childType = TransformProcedure<Element, Output>.self
        self.init(input: input, width: width, onFailure: onFailure, maker: .transform({ element in
            childType.init(input: element, transform)
        }))
    }

    /// A batch that runs `operation` on each element in a `Task` (an `async`
    /// ``TransformProcedure`` each); cancelling the batch cancels the running tasks.
    public convenience init(
        input: [Element]? = nil,
        width: Int = ProcessInfo.processInfo.activeProcessorCount,
        onFailure: FailurePolicy = .runRemaining,
        operation: @escaping @Sendable (Element) async throws -> Output
    ) {
        let childType = TransformProcedure<Element, Output>.self
        self.init(input: input, width: width, onFailure: onFailure, maker: .transform({ element in
            childType.init(input: element, operation: operation)
        }))
    }

    /// The outputs of the children that succeeded, in input order (nil for the others), once
    /// the batch has finished, whether it succeeded, failed or was cancelled; nil before.
    public var partialOutput: [Output?]? { batchLock.withLock { batch.partial } }

    /// Starts the first `width` elements.
    public override func execute() {
        guard let elements = input else {
            cancel(withError: ProcedureError.missingInput(name: displayName))
            super.execute()
            return
        }
        batchLock.withLock {
            batch.elements = elements
            batch.made = Array(repeating: nil, count: elements.count)
            batch.finished = Array(repeating: false, count: elements.count)
            if case .custom = maker { batch.custom = Array(repeating: nil, count: elements.count) }
            batch.elementCount = elements.count
            batch.started = true
        }
        progressSourceDidChange()
        for _ in 0..<min(width, elements.count) { startNext() }
        super.execute()
    }

    /// An input given (or injected) before the batch executes is its progress's total at
    /// once, rather than an empty "0 of 0" until it starts.
    private func inputDidChange() {
        let count = input?.count ?? 0
        let changed = batchLock.withLock { () -> Bool in
            guard !batch.started, batch.elementCount != count else { return false }
            batch.elementCount = count
            return true
        }
        if changed { progressSourceDidChange() }
    }

    private func startNext() {
        // The request, not `isCancelled`: no element starts once a cancel is asked for.
        guard cancelRequest == nil else { return }
        guard let index = batchLock.withLock({ () -> Int? in
            guard !batch.stopped, batch.next < batch.elementCount else { return nil }
            defer { batch.next += 1 }
            return batch.next
        }) else { return }
        let element = batchLock.withLock { batch.elements[index] }
        // Made outside the lock (it is user code); children of several elements may be made
        // at once, on the threads of the children that finished before them.
        let child: Procedure
        let stopped: Bool
        switch maker {
        case .transform(let make):
            child = make(element)
            stopped = batchLock.withLock {
                batch.made[index] = child
                return batch.stopped
            }
        case .custom(let make):
            let made = make(element)
            child = made
            stopped = batchLock.withLock {
                batch.made[index] = child
                batch.custom[index] = made
                return batch.stopped
            }
        }
        // A failure recorded while this child was being made: the failure's cancel did not
        // see it, so it cancels itself (and still finishes, once, without executing).
        if stopped { child.cancel() }
        // Will-finish observers run on the finishing child's thread, after its work and before
        // its queue or the group learn that it finished: the next element starts there, in
        // parallel with the others; the group cannot finish before it has been added; and a
        // failure stops the batch before anything the finish sets off can start another.
        // Strong: a weak reference would give the batch a side table, after which every
        // retain and release of it (several per child) takes the runtime's slow path. The
        // cycle it makes (the batch keeps the child in `made`) ends when the child finishes
        // and lets go of its observers.
        child.addWillFinishBlockObserver { [self, index] _, errors in childFinished(at: index, errors: errors) }
        addChild(child)
    }

    private func childFinished(at index: Int, errors: [any Error]) {
        let policy = self.policy
        let others = batchLock.withLock { () -> [Procedure] in
            batch.finished[index] = true
            batch.finishedElements += 1
            guard !errors.isEmpty, policy == .cancelRemaining, !batch.stopped else { return [] }
            batch.stopped = true
            return batch.made.indices.compactMap { batch.finished[$0] ? nil : batch.made[$0] }
        }
        for other in others { other.cancel() }
        progressSourceDidChange()
        startNext()
    }

    /// Sets the partial output and, after a success, the output.
    public override func procedureWillFinish(withErrors errors: [any Error]) {
        let succeeded = errors.isEmpty && !isCancelled
        let elementCount = input?.count ?? 0
        let (made, custom) = batchLock.withLock { () -> ([Procedure?], [(any OutputProcedure<Output>)?]) in
            defer {
                batch.made = []
                batch.finished = []
                batch.custom = []
            }
            return (batch.made, batch.custom)
        }
        // Released outside the lock: an element's deinit is user code.
        let elements = batchLock.withLock { () -> [Element] in
            defer { batch.elements = [] }
            return batch.elements
        }
        withExtendedLifetime(elements) {}
        // Read outside our lock: each output takes its child's own locks.
        var outputs: [Output?]
        switch maker {
        case .transform:
            let childType = TransformProcedure<Element, Output>.self
            outputs = made.map { child in
                guard let child, !child.isCancelled, child.errors.isEmpty else { return nil }
                return unsafeDowncast(child, to: childType).output
            }
        case .custom:
            outputs = custom.map { child in
                guard let child, !child.isCancelled, child.errors.isEmpty else { return nil }
                return child.output
            }
        }
        // A batch that never executed has no slots yet.
        if outputs.count < elementCount {
            outputs.append(contentsOf: repeatElement(nil, count: elementCount - outputs.count))
        }
        if succeeded, made.count == elementCount, let complete = Self.unwrapped(outputs) {
            setOutput(complete)
        }
        batchLock.withLock { batch.partial = outputs }
        super.procedureWillFinish(withErrors: errors)
    }

    /// Its progress counts elements: those finished (whatever their outcome) of all; before it
    /// executes, of its input's, or of an unknown total while it has none.
    package var progressUnits: ProgressUnits {
        batchLock.withLock { ProgressUnits(completed: Int64(batch.finishedElements), of: Int64(batch.elementCount)) }
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
