import Foundation
import ProceduresSupport

/// One operation for a ``RepeatProcedure`` to run, with what to do before it.
public struct RepeatProcedurePayload<T: Operation>: Sendable {
    /// The operation to run next.
    public var operation: T
    /// Seconds to wait before running it, instead of what the repeat's ``WaitStrategy`` says;
    /// nil to ask the strategy. Zero, negative or NaN: no wait.
    public var wait: TimeInterval?
    /// Runs on the operation just before it is added (after the repeat's own configure block).
    public var configure: (@Sendable (T) -> Void)?

    /// A payload running `operation`, after `wait` seconds if given, configured by `configure`.
    public init(operation: T, wait: TimeInterval? = nil, configure: (@Sendable (T) -> Void)? = nil) {
        self.operation = operation
        self.wait = wait
        self.configure = configure
    }
}

/// Runs operations from an iterator one after another, each as a child of the group,
/// optionally waiting between them.
///
/// The first operation starts when the repeat executes; each next one is taken from the
/// iterator when the previous one finishes, configured (``appendConfigureBlock(_:)``), and
/// added after the wait the ``WaitStrategy`` (or the payload) asks for. It stops when the
/// iterator ends, after `max` operations, or when cancelled: cancelling the repeat cancels the
/// running operation, or the wait and the operation behind it, and adds no more.
///
/// ```swift
/// var page = 0
/// let pages = RepeatProcedure(max: 5, wait: .constant(1)) { () -> FetchPage? in
///     page += 1
///     return FetchPage(number: page)
/// }
/// queue.addOperation(pages)
/// ```
///
/// Waits are ``DelayProcedure`` children on the repeat's ``clock``. During a wait the repeat
/// runs nothing, so it does not count against its queue's (or group's)
/// `maxConcurrentOperationCount`: it gives its slot back, other work runs, and the next
/// operation starts once the repeat has a slot again (in line with the queue's ready
/// procedures, by priority, then first come). The repeat finishes with
/// the errors of all its operations (a ``RetryProcedure`` keeps only the last one's).
///
/// Its ``Procedure/progress`` counts operations finished (a retry's: attempts) of `max`, and is
/// indeterminate without a `max`; it reaches 100 % when the repeat finishes.
///
/// The iterator and the configure blocks are called one at a time, from the group's own
/// callbacks, never under a lock.
open class RepeatProcedure<T: Operation>: GroupProcedure, ProgressUnitsSource, @unchecked Sendable {
    // @unchecked: `nextFromIterator` and `randomness` are only touched from the group's
    // callbacks (`execute()` and child-finished handling), which never overlap; `iteration` is
    // only touched under the procedure's own `lock` (a few stores at a time, no other lock
    // taken: a lock of its own would cost every repeat two more allocations); the `let`s are
    // immutable.

    /// The most operations the repeat runs, the first included; nil for no limit.
    public let max: Int?
    /// The wait before each operation after the first (unless its payload says otherwise).
    public let wait: WaitStrategy
    /// The clock the waits are measured on.
    public let clock: any ProcedureClock

    private var nextFromIterator: () -> RepeatProcedurePayload<T>?
    // Unchecked: only touched under the procedure's `lock`, which already excludes every other access.
    @exclusivity(unchecked) private var iteration = RepeatIteration()

    /// Repeats the payloads of `iterator` (each may bring its own wait and configure block).
    public convenience init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        payloads iterator: some IteratorProtocol<RepeatProcedurePayload<T>>
    ) {
        var payloads = iterator
        self.init(max: max, wait: wait, clock: clock, next: { payloads.next() })
    }

    /// Repeats the operations of `iterator`.
    public convenience init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        iterator: some IteratorProtocol<T>
    ) {
        var operations = iterator
        self.init(max: max, wait: wait, clock: clock, next: { operations.next().map { RepeatProcedurePayload(operation: $0) } })
    }

    /// Repeats the operations `body` makes, until it returns nil (or `max` is reached).
    public convenience init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        body: @escaping () -> T?
    ) {
        self.init(max: max, wait: wait, clock: clock, next: { body().map { RepeatProcedurePayload(operation: $0) } })
    }

    /// Repeats the payloads `next` returns, until it returns nil (or `max` is reached). The
    /// designated initializer, for subclasses; the others wrap their iterator in `next`.
    public init(
        max: Int? = nil, wait: WaitStrategy = .immediate, clock: any ProcedureClock = SystemClock.shared,
        next: @escaping () -> RepeatProcedurePayload<T>?
    ) {
        self.max = max
        self.wait = wait
        self.clock = clock
        self.nextFromIterator = next
        super.init()
        // Room for two operations at once (a retry's usual), instead of growing at the second.
        // Not shared yet: no lock needed.
        group.children.reserveCapacity(2)
    }

    override var executeIsBuiltIn: Bool { isInstance(levelsBelowGroupProcedure: 1) }

    // MARK: - Iterations

    /// How many operations have been added so far, the running one included.
    public final var count: Int { lock.withLock { iteration.count } }
    /// The operation added last (running, waiting to run, or finished with the repeat).
    public final var current: T? { lock.withLock { iteration.current }.map { unsafeDowncast($0, to: T.self) } }
    /// The operation added before ``current``.
    public final var previous: T? { lock.withLock { iteration.previous }.map { unsafeDowncast($0, to: T.self) } }

    /// Its progress counts operations (a retry's, attempts): those finished, of `max`
    /// (indeterminate without one). The repeat is complete when it finishes, whatever `max` says.
    package var progressUnits: ProgressUnits {
        lock.withLock { ProgressUnits(completed: Int64(iteration.finished), of: max.map(Int64.init) ?? -1) }
    }

    /// Adds `block` to what runs on each operation before it is added (after the blocks
    /// already there). Operations added already are not affected.
    public final func appendConfigureBlock(_ block: @escaping @Sendable (T) -> Void) {
        let block = Self.erase(block)
        lock.withLock {
            guard let existing = iteration.configure else {
                iteration.configure = block
                return
            }
            iteration.configure = { @Sendable operation in
                existing(operation)
                block(operation)
            }
        }
    }

    /// Replaces every configure block with `block`.
    public final func replaceConfigureBlock(_ block: @escaping @Sendable (T) -> Void) {
        let block = Self.erase(block)
        lock.withLock { iteration.configure = block }
    }

    /// `block` as a block on any operation: the repeat only ever hands it its own `T`s.
    private static func erase(_ block: @escaping @Sendable (T) -> Void) -> @Sendable (Operation) -> Void {
        { operation in block(unsafeDowncast(operation, to: T.self)) }
    }

    /// Runs the configure blocks on `operation`, in the order they were appended (a payload's
    /// own configure block is not among them). The repeat calls it on each operation it adds;
    /// call it to configure another operation the same way (in a subclass, or a test).
    ///
    /// ```swift
    /// pages.appendConfigureBlock { $0.pageSize = 50 }
    /// let probe = FetchPage(number: 0)
    /// pages.configure(probe)   // probe.pageSize == 50
    /// ```
    public final func configure(_ operation: T) {
        let configure = lock.withLock { iteration.configure }
        configure?(operation)  // outside the lock: it is user code
    }

    /// Stores the repeat's input and the block that gives it to each new operation.
    final func setInputForOperations(_ input: (any Sendable)?, apply: @escaping @Sendable (T) -> Void) {
        let apply = Self.erase(apply)
        lock.withLock {
            iteration.input = input
            iteration.applyInput = apply
        }
    }

    /// The input stored by `setInputForOperations(_:apply:)`.
    final var inputForOperations: (any Sendable)? { lock.withLock { iteration.input } }

    // MARK: - Running

    /// Adds the first operation and starts it. Subclasses must call `super.execute()`.
    open override func execute() {
        if let first = nextPayload(after: nil, errors: []) { add(first, wait: 0) }
        super.execute()
    }

    /// The next payload after `operation` (nil at the start) finished with `errors`, or nil to
    /// stop. The default takes it from the iterator until `max` is reached. Only called from
    /// the group's callbacks.
    func nextPayload(after operation: T?, errors: [any Error]) -> RepeatProcedurePayload<T>? {
        if let max, count >= max { return nil }
        return nextFromIterator()
    }

    /// Whether the group keeps the errors of an operation that finished; `continuing` says
    /// whether another operation follows it. The default keeps them all.
    func keepsErrors(continuing: Bool) -> Bool { true }

    /// Every child's finish may move the repeat on: all go through the group's callbacks.
    override func childDidFinish(_ child: Operation, errors: [any Error]) {
        handleChildFinishAmongCallbacks(child, errors: errors)
    }

    /// Called when `operation` finished with `errors` and no operation follows it, before the
    /// group counts it out (so the repeat has not begun finishing). The default does nothing.
    func didStop(after operation: T, errors: [any Error]) {}

    /// A finish of the current operation moves the repeat on; every other moment is the group's.
    final override func respond(to moment: BuiltInMoment) -> BuiltInResponse {
        // Only the current operation moves the repeat on; its waits are children too.
        guard case .operationFinished(let child, let errors) = moment,
              child === lock.withLock({ iteration.current }) else {
            return super.respond(to: moment)
        }
        let operation = unsafeDowncast(child, to: T.self)  // `current` is always a `T`
        lock.withLock { iteration.finished += 1 }
        progressSourceDidChange()
        var continuing = false
        var handed = false
        // Once cancelled, nothing more is added (a child added in a race with the cancel is
        // cancelled by the group, and finishes without running).
        if !isCancelled, let payload = nextPayload(after: operation, errors: errors), isNew(payload.operation) {
            continuing = true
            // Finishing inside its run on the loop of this group's scheduler, the operation
            // can leave its successor to that loop, which takes it as soon as the run returns.
            let loop = (child as? Procedure).flatMap { DrainLoopThread.current.comingLoop(of: scheduler, running: $0) }
            handed = add(payload, wait: payload.wait ?? wait.interval(forWait: count, using: &randomness), handingTo: loop)
        }
        if !continuing { didStop(after: operation, errors: errors) }
        let kept = keepsErrors(continuing: continuing) ? errors : []
        if handed {
            // User code must not hold the thread the successor waits on: a loop is started
            // before the group's hooks (transformChildErrors, progress) run now, or before its
            // next callback runs on this thread.
            if !kept.isEmpty || existingProgressTracker != nil {
                scheduler.startLoopForHandedWork()
            } else {
                lock.withLock { state.mailbox.oweLoopStart() }
            }
        }
        // Added before the group counts this child out, so the group does not finish between.
        return super.respond(to: .operationFinished(child, errors: kept))
    }

    private var randomness = SystemRandomNumberGenerator()

    /// A repeat needs a fresh operation each time; one that already ran (the failed attempt
    /// handed back by a retry handler, say) or sits on a queue ends the repeat, reported.
    private func isNew(_ operation: T) -> Bool {
        let reused = operation.isFinished || operation.isExecuting || ((operation as? Procedure)?.isEnqueued ?? false)
        guard reused else { return true }
        ProcedureMisuse.report(
            .addedAfterFinishing,
            "\(displayName) was given an operation that has already been enqueued or run (\(operation.name ?? "\(type(of: operation))")); each repetition needs a new operation. The repeat stops here, with the last operation's errors.",
            subject: self)
        return false
    }

    /// Adds the payload's operation (after a wait, if `seconds` is positive); true if it was
    /// handed to `loop` (the group's scheduler's drain loop on this thread).
    @discardableResult
    private func add(_ payload: RepeatProcedurePayload<T>, wait seconds: TimeInterval, handingTo loop: ProcedureScheduler? = nil) -> Bool {
        let operation = payload.operation
        let (applyInput, configure) = lock.withLock { (iteration.applyInput, iteration.configure) }
        applyInput?(operation)
        configure?(operation)
        payload.configure?(operation)
        lock.withLock {
            iteration.previous = iteration.current
            iteration.current = operation
            iteration.count += 1
            iteration.pause = nil
        }
        guard seconds > 0 else {  // also false for NaN
            return adoptChild(operation, handingTo: loop)
        }
        let pause = DelayProcedure(by: seconds, clock: clock)
        pause.name = "\(displayName) wait \(count)"
        lock.withLock { iteration.pause = pause }
        // The repeat runs nothing during the wait: its slot of its owner's width goes to other
        // work, and the next operation starts once it has one again.
        let slot = SlotReacquisition(for: self)
        slot.name = "\(displayName) slot \(count)"
        slot.addDependency(pause)
        operation.addDependency(slot)
        releaseSlot()
        addChildren([pause, slot, operation])
        return false
    }
}

/// A repeat's iteration state. Not generic on purpose: in the repeat's generic code every
/// access to a `T?` or to a struct nested in the generic class asks the runtime for that
/// type's metadata (a hashed lookup), several times per operation.
/// The repeat only ever stores its own `T`s here, and casts them back without a check.
private struct RepeatIteration {
    var count = 0
    /// How many operations have finished (the progress counts them).
    var finished = 0
    var current: Operation?
    var previous: Operation?
    /// The wait before `current`, if it has one (for ``Procedure/waitingReason``).
    var pause: DelayProcedure?
    var configure: (@Sendable (Operation) -> Void)?
    /// The input given to the repeat (when `T` is an ``InputProcedure``), and what hands
    /// it to each new operation; see `RepeatProcedure+DataFlow.swift`.
    var input: (any Sendable)?
    var applyInput: (@Sendable (Operation) -> Void)?
}

extension RepeatProcedure: ClockWaiting {
    /// Its back-off, while it waits on its clock.
    var clockWait: (clock: any ProcedureClock, deadline: TimeInterval)? {
        lock.withLock { iteration.pause }?.clockWait
    }
}
