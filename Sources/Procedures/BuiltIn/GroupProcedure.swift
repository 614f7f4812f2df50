import Foundation

/// A procedure made of other operations, its children, which run on the group's own queue.
///
/// The group starts its children when it executes and finishes once every child has
/// finished (a child procedure counts once its did-finish observers have run, so they may
/// still add children or cancel the group), including children added while it runs and
/// operations its children ``Procedure/produce(_:)``. Its errors are its children's errors (pass them through
/// ``transformChildErrors(_:from:)`` to rewrite or drop them).
///
/// ```swift
/// let group = GroupProcedure(operations: [download, parse, store])
/// group.maxConcurrentOperationCount = 2
/// group.addDidFinishBlockObserver { group, errors in print("all done", errors) }
/// queue.addOperation(group)
/// ```
///
/// Cancelling the group cancels every child, those added later included (a child of a group
/// cancelled with errors gets ``ProcedureError/parentCancelled(errors:)``). The group still
/// finishes only after every child has finished, and then it carries its own cancel errors
/// rather than the echoes of them its children report. A group cancelled before it started
/// never calls `execute()`, but still lets its (cancelled) children finish first.
///
/// A subclass that overrides ``execute()`` must call `super.execute()`; children it adds
/// before or after that call all belong to the group.
open class GroupProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `group` is guarded by `groupLock`; `queue` is immutable.
    private struct State {
        var children: [Operation] = []
        /// Children added before the group started; enqueued when it starts.
        var notYetEnqueued: [Operation] = []
        var unfinishedChildren = 0
        var started = false
        var finishing = false
        var cancelled = false
        var cancelErrors: [any Error] = []
        var childErrors: [any Error] = []
    }
    private let groupLock = Lock()
    private var group = State()
    private let queue = ProcedureQueue()

    /// A group of `operations`, which may be empty; add more with ``addChild(_:)``.
    public init(operations: [Operation] = []) {
        super.init()
        queue.name = "GroupProcedure"
        queue.owningGroup = self
        addChildren(operations)
    }

    // MARK: - Children

    /// Every child added so far, in the order they were added.
    public final var children: [Operation] { groupLock.withLock { group.children } }

    /// How many children may run at once (default: as many as the system allows).
    public final var maxConcurrentOperationCount: Int {
        get { queue.maxConcurrentOperationCount }
        set { queue.maxConcurrentOperationCount = newValue }
    }

    /// While true, no further child starts (running ones carry on).
    public final var isSuspended: Bool {
        get { queue.isSuspended }
        set { queue.isSuspended = newValue }
    }

    /// Adds a child. Before the group executes it waits; afterwards it is enqueued at once.
    ///
    /// Once the group has begun finishing the child is not added (it could never make the
    /// group wait): the call is ignored and reported as
    /// ``ProcedureMisuse/Kind/childAddedToFinishingGroup``.
    public final func addChild(_ child: Operation) {
        adoptChild(child)
    }

    /// Adds several children in order. See ``addChild(_:)``.
    public final func addChildren(_ children: some Sequence<Operation>) {
        for child in children { adoptChild(child) }
    }

    /// Rewrites or drops the errors of a child that finished with errors; return `[]` to
    /// ignore them. The default keeps them. It runs among the group's own callbacks (never at
    /// the same time as another of them), and not at all once the group is cancelled.
    open func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        errors
    }

    /// Starts the children. Subclasses that override it must call `super.execute()`.
    open override func execute() {
        startChildren()
    }

    // MARK: - Internals

    func adoptChild(_ child: Operation) {
        enum Decision { case reject, hold, enqueue }
        let (decision, cancelErrors) = groupLock.withLock { () -> (Decision, [any Error]?) in
            if group.finishing { return (.reject, nil) }
            group.children.append(child)
            group.unfinishedChildren += 1
            let cancelErrors = group.cancelled ? group.cancelErrors : nil
            if group.started { return (.enqueue, cancelErrors) }
            group.notYetEnqueued.append(child)
            return (.hold, cancelErrors)
        }
        if decision == .reject {
            ProcedureMisuse.report(
                .childAddedToFinishingGroup,
                "a child was added to \(displayName) after it began finishing; the child was not added and will not run. Add children before the group's last child finishes.",
                subject: self)
            return
        }
        if let cancelErrors { Self.cancel(child, parentErrors: cancelErrors) }
        if decision == .enqueue { enqueue(child) }
    }

    private func enqueue(_ child: Operation) {
        if !(child is Procedure) {
            // corelibs cannot report a plain operation's finish to us; a sentinel that depends
            // on it runs right after it does.
            let sentinel = BlockOperation { [weak self] in self?.childDidFinish(child, errors: []) }
            sentinel.addDependency(child)
            queue.enqueue(sentinel)
        }
        queue.enqueue(child)
    }

    private func startChildren() {
        let held = groupLock.withLock { () -> [Operation] in
            group.started = true
            defer { group.notYetEnqueued = [] }
            return group.notYetEnqueued
        }
        for child in held { enqueue(child) }
        // Checked after execute() returns, so children a subclass adds after calling
        // super.execute() still count.
        post(.perform { [self] in finishIfDone() })
    }

    override func startWhileCancelled() {
        startChildren()
    }

    override func cancellationDidTakeEffect(errors: [any Error]) {
        let children = groupLock.withLock { () -> [Operation] in
            group.cancelled = true
            group.cancelErrors = errors
            return group.children
        }
        for child in children { Self.cancel(child, parentErrors: errors) }
    }

    private static func cancel(_ child: Operation, parentErrors: [any Error]) {
        if let procedure = child as? Procedure, !parentErrors.isEmpty {
            procedure.cancel(withError: ProcedureError.parentCancelled(errors: parentErrors))
        } else {
            child.cancel()
        }
    }

    /// A child finished (told by the group's queue, or by a plain child's sentinel).
    func childDidFinish(_ child: Operation, errors: [any Error]) {
        send(.perform { [self] in handleChildFinished(child, errors: errors) })
    }

    private func handleChildFinished(_ child: Operation, errors: [any Error]) {
        let collect = !errors.isEmpty && groupLock.withLock { !group.cancelled }
        if collect, let procedure = child as? Procedure {
            let kept = transformChildErrors(errors, from: procedure)
            groupLock.withLock { group.childErrors.append(contentsOf: kept) }
        }
        groupLock.withLock { group.unfinishedChildren -= 1 }
        finishIfDone()
    }

    private func finishIfDone() {
        let errors = groupLock.withLock { () -> [any Error]? in
            guard group.started, !group.finishing, group.unfinishedChildren == 0 else { return nil }
            group.finishing = true
            // Once cancelled, the group reports its own cancel errors, not its children's echoes.
            return group.cancelled ? [] : group.childErrors
        }
        if let errors { finishAutomatically(withErrors: errors) }
    }
}
