import Foundation
import ProceduresSupport
import Synchronization

/// An `OperationQueue` for procedures (plain `Operation`s are welcome too).
///
/// It schedules its work itself, on Dispatch, rather than through Foundation's
/// `OperationQueue` machinery: a procedure waits in the queue's own dependency tracking until
/// its dependencies, conditions and exclusive categories let it run, then takes a slot of the
/// queue's width. `maxConcurrentOperationCount`, `isSuspended`, `underlyingQueue`,
/// `qualityOfService`, each operation's `queuePriority` (among ready work; FIFO otherwise),
/// ``addBarrierBlock(_:)``, ``cancelAllOperations()`` and
/// ``waitUntilAllOperationsAreFinished()`` work as on `OperationQueue`, for procedures and
/// plain operations together: a queue of width 1 runs one thing at a time, whatever the mix.
///
/// ```swift
/// let queue = ProcedureQueue()
/// let download = DownloadProcedure(url)
/// let parse = ParseProcedure()
/// parse.addDependency(download)
/// queue.addOperations([download, parse], waitUntilFinished: false)
/// ```
///
/// A dependency cycle among the procedures a queue holds is detected when the procedure
/// that closes it is added: every procedure on the cycle is cancelled with
/// ``ProcedureError/dependencyCycle(names:)`` (so it finishes, and so does everything
/// waiting on it), and the cycle is reported to ``ProcedureMisuse``.
///
/// The queue lets go of a finished procedure a little after it finishes: the next thread that
/// adds to the queue releases it (so its memory goes back to the thread that allocated it, which
/// with glibc's allocator saves a contended lock per block), or, once the queue is idle or
/// 256 finished procedures wait, the thread that finished the last one does. So a finished
/// procedure's `deinit` may run on the adding thread.
///
/// What differs from Foundation's queue, because corelibs does not let a subclass change it:
/// - Foundation's `operationCount` and `operations` stay empty: Foundation never holds the
///   work. Use ``unfinishedOperationCount`` and ``unfinishedOperations``.
/// - `OperationQueue.current` is nil inside a procedure (on the main thread corelibs answers
///   `.main`). ``current`` (that is, `ProcedureQueue.current`) answers the queue — or, for a
///   group's child, a queue that adds to the group — inside `execute()` and the callbacks a
///   queue starts.
/// - Do not put one procedure on a plain `OperationQueue` *and* on a `ProcedureQueue`:
///   Foundation stops the process when an operation it already holds is enqueued again, and
///   offers no way to tell that a plain queue holds it.
open class ProcedureQueue: OperationQueue, ProcedureOwner, @unchecked Sendable {
    // @unchecked: `state` and `storedDelegate` are guarded by `lock` (so is each member's
    // `memberIndex`, written under it); `scheduler` is immutable and locks for itself; `idleGeneration` is guarded by
    // `idle`, an NSCondition used only to wake `waitUntilAllOperationsAreFinished`.
    private let lock = InlineLock()
    let scheduler: ProcedureScheduler
    // Unchecked: only touched under `lock`, which already makes each access exclusive.
    @exclusivity(unchecked) private var state = ProcedureQueueState()
    private weak var storedDelegate: (any ProcedureQueueDelegate)?
    /// Whether a delegate was ever set: without one, a finishing procedure takes no lock to
    /// find out that there is nobody to tell (the queue's lock is its busiest).
    private let hadDelegate = Atomic<Bool>(false)
    /// How many times the queue was found idle with waiters; guarded by `idle`, never by
    /// `lock`, so a waiter can tell that a wake came after its look at the members.
    private var idleGeneration = 0
    /// How many finished procedures may wait for the next add before the finishing thread
    /// releases them itself.
    static let unreleasedLimit = 256
    private let idle = NSCondition()

    /// An empty queue, with Foundation's defaults (as many at once as the system allows).
    public override init() {
        scheduler = ProcedureScheduler()
        super.init()
    }

    /// Told about additions and finishes. Held weakly.
    public var delegate: (any ProcedureQueueDelegate)? {
        get { lock.withLock { storedDelegate } }
        set {
            lock.withLock { storedDelegate = newValue }
            if newValue != nil { hadDelegate.store(true, ordering: .releasing) }
        }
    }

    // MARK: - Settings (all served by the queue's own scheduler)

    /// How many operations may run at once; -1 (the default) lets the system decide.
    open override var maxConcurrentOperationCount: Int {
        get { scheduler.maxConcurrentOperationCount }
        set { scheduler.maxConcurrentOperationCount = newValue }
    }

    /// While true, no further operation starts (running ones carry on), the conditions of
    /// waiting procedures are not checked and their exclusivity categories not taken: that
    /// happens once the queue is resumed.
    open override var isSuspended: Bool {
        get { scheduler.isSuspended }
        set {
            // Resumed condition checks are user code: begun here, holding no lock.
            for procedure in scheduler.setSuspended(newValue).resumedGates { procedure.beginCheckingConditions() }
        }
    }

    /// The Dispatch queue operations run on; nil (the default) uses the global queue of the
    /// queue's ``qualityOfService``. Set it before adding operations, as on `OperationQueue`.
    open override var underlyingQueue: DispatchQueue? {
        get { scheduler.underlyingQueue }
        set { scheduler.setUnderlyingQueue(newValue) }
    }

    /// The Dispatch quality of service operations run at, unless ``underlyingQueue`` is set.
    open override var qualityOfService: QualityOfService {
        get { scheduler.qualityOfService }
        set { scheduler.setQualityOfService(newValue) }
    }

    /// The queue running the current thread's procedure: inside `execute()` and the callbacks
    /// a queue starts, the ``ProcedureQueue`` (for a group's child, a queue whose operations
    /// become the group's children). Elsewhere, what Foundation's `OperationQueue.current`
    /// answers. (`OperationQueue.current` itself, Foundation's, does not know procedures.)
    public override static var current: OperationQueue? {
        CurrentOwner.perThread.current.owner?.queueFacade ?? super.current
    }

    var queueFacade: ProcedureQueue { self }

    var schedulerMayBeSuspended: Bool { scheduler.mayBeSuspended }

    var ownerRole: ProcedureOwnerRole { .queue(self) }

    var nameInMisuseReports: String { name ?? "a ProcedureQueue" }

    // MARK: - Adding

    /// Adds `operation`. A procedure runs once its dependencies have finished (or once it is
    /// cancelled). Adding a procedure twice, to a second queue, or after it finished is
    /// ignored and reported to ``ProcedureMisuse``.
    open override func addOperation(_ operation: Operation) {
        enqueue(operation)
    }

    /// Adds a `BlockOperation` running `block`.
    open override func addOperation(_ block: @escaping @Sendable () -> Void) {
        addOperation(BlockOperation(block: block))
    }

    /// Adds `operations` in order. With `wait` true it blocks the calling thread until they
    /// have all finished, as `OperationQueue` does; never ask for that on a queue's own
    /// thread or in `async` code.
    open override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        for operation in operations { addOperation(operation) }
        // Blocking only because the caller asked for it through Foundation's API.
        if wait { for operation in operations { operation.waitUntilFinished() } }
    }

    func addProduced(_ operation: Operation) {
        enqueue(operation)
    }

    /// Adds `operation` to this queue; false if it could not be adopted (the misuse is reported).
    @discardableResult
    func enqueue(_ operation: Operation) -> Bool {
        let procedure: Procedure
        if let given = operation as? Procedure {
            guard !given.isEnqueued else {
                _ = claim(given)  // reports why it cannot be added
                return false
            }
            procedure = given
        } else {
            guard let runner = runner(forPlain: operation) else { return false }
            procedure = runner
        }
        // Recorded as a member and reading the barrier in one critical section with
        // `addBarrierBlock`'s: an operation is either seen by a new barrier (and comes before
        // it) or sees it (and comes after).
        var finished: [Procedure] = []
        let added = lock.withLock { () -> ((any ProcedureQueueDelegate)?, BarrierProcedure?)? in
            if let runner = procedure.asOperationRunner {
                // A plain operation's second add would start it twice (Foundation stops the
                // process then); a procedure's is reported by its claim.
                guard state.plainMembers.updateValue(runner, forKey: ObjectIdentifier(operation)) == nil else { return nil }
            }
            state.members.append(procedure)
            if !state.finishedUnreleased.isEmpty { swap(&finished, &state.finishedUnreleased) }
            return (storedDelegate, state.pendingBarrier)
        }
        finished = []  // released here, outside the lock: their deinits are user code
        guard let (delegate, barrier) = added else {
            reportSecondAdd(of: operation)
            return false
        }
        assertNoLibraryLockHeld("the queue delegate's procedureQueue(_:willAdd:)")
        delegate?.procedureQueue(self, willAdd: operation)
        if let barrier { operation.addDependency(barrier) }
        procedure.asOperationRunner?.adoptOperationDependencies()
        guard claim(procedure) else {
            _ = lock.withLock { removeMember(procedure, adoptedElsewhere: true) }
            return false
        }
        assertNoLibraryLockHeld("the queue delegate's procedureQueue(_:didAdd:)")
        delegate?.procedureQueue(self, didAdd: operation)
        return true
    }

    /// Under `lock`; returns the queue's reference to it. `adoptedElsewhere`: the add failed,
    /// and the procedure's index may be another queue's (two queues raced to add it): look for
    /// it instead (a misuse's cost).
    private func removeMember(_ procedure: Procedure, adoptedElsewhere: Bool) -> Procedure? {
        if let runner = procedure.asOperationRunner { state.plainMembers[ObjectIdentifier(runner.operation)] = nil }
        let removed = state.members.remove(procedure, trustIndex: !adoptedElsewhere)
        if !adoptedElsewhere { procedure.memberIndex = -1 }
        return removed
    }

    // MARK: - Finishing

    func procedureWillFinish(_ procedure: Procedure, errors: [any Error]) {
        guard hadDelegate.load(ordering: .acquiring) else { return }
        switch procedure.role {
        case .barrier: return  // the delegate was not told about its addition either
        case .operationRunner: return  // told once it has finished
        case .ordinary, .group: break
        }
        guard let delegate else { return }
        assertNoLibraryLockHeld("the queue delegate's procedureQueue(_:willFinish:withErrors:)")
        delegate.procedureQueue(self, willFinish: procedure, withErrors: errors)
    }

    func procedureDidFinish(_ procedure: Procedure, errors: [any Error]) {
        let operation = procedure.reportedOperation
        var action: ProcedureQueueState.FinishAction
        let delegate: (any ProcedureQueueDelegate)?
        (action, delegate) = lock.withLock { () -> (ProcedureQueueState.FinishAction, (any ProcedureQueueDelegate)?) in
            let removed = removeMember(procedure, adoptedElsewhere: false)
            return (state.memberFinished(procedure, removed: removed), storedDelegate)
        }
        action.release = []  // released here, outside the lock (the caller still holds `procedure`)
        if action.wakesWaiters {
            idle.lock()
            idleGeneration &+= 1
            idle.broadcast()
            idle.unlock()
        }
        guard let delegate, procedure.role != .barrier else { return }
        // A procedure handed to this thread's loop by the finish must not wait for the delegate.
        scheduler.startLoopForHandedWork()
        assertNoLibraryLockHeld("the queue delegate's procedureQueue(_:didFinish:)")
        if operation === procedure {
            delegate.procedureQueue(self, didFinish: procedure, withErrors: errors)
        } else {
            delegate.procedureQueue(self, didFinish: operation)
        }
    }

    // MARK: - Inspecting and cancelling

    /// How many operations added to the queue have not finished: waiting, ready or running
    /// (pending barriers included). Foundation's `operationCount` does not see them.
    public var unfinishedOperationCount: Int { lock.withLock { state.members.count } }

    /// The operations added to the queue that have not finished, in the order they were added.
    public var unfinishedOperations: [Operation] {
        lock.withLock { state.members.procedures }.map(\.reportedOperation)
    }

    /// The unfinished members (a plain operation's entry is its runner), oldest first.
    var unfinishedMembers: [Procedure] { lock.withLock { state.members.procedures } }

    var ownedProcedures: [Procedure] { unfinishedMembers }

    /// How many procedures wait in this queue for their dependencies or conditions.
    public var waitingProcedureCount: Int {
        lock.withLock { state.members.procedures }.reduce(0) { $0 + ($1.isWaiting ? 1 : 0) }
    }

    /// Cancels every unfinished operation in the queue, including waiting procedures and
    /// pending barriers (whose blocks then do not run).
    open override func cancelAllOperations() {
        let unfinished = lock.withLock { state.members.procedures }
        // As one act (every cancel decided before any is handled), so that no procedure
        // starts because a dependency was cancelled and finished before it was cancelled too.
        // A plain operation is cancelled with its runner, which then starts it at once.
        var operations: [Operation] = unfinished
        operations += unfinished.compactMap { $0.asOperationRunner?.operation }
        Procedure.cancelTogether(operations) { _ in [] }
    }

    /// Runs `barrier` once every operation added before it has finished; operations added
    /// after it start only once it has run, as on `OperationQueue`.
    ///
    /// ```swift
    /// queue.addOperations([download, parse], waitUntilFinished: false)
    /// queue.addBarrierBlock { print("both done") }
    /// ```
    ///
    /// Add a procedure's dependencies before a barrier that comes after the procedure: a
    /// dependency added after the barrier waits for it, and the barrier for the procedure.
    /// When that dependency is a procedure, the cycle is cancelled and reported like any other
    /// (the barrier's block does not run); when it is a plain `Operation`, nothing can see the
    /// cycle and it hangs, as it does with Foundation's own barrier.
    /// ``cancelAllOperations()`` cancels a pending barrier too.
    open override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        let procedure = BarrierProcedure(block: barrier)
        let (previous, earlier) = lock.withLock { state.barrierAdded(procedure) }
        _ = consume previous  // released outside the lock: it may hold the last reference to user state
        procedure.addDependencies(earlier)
        _ = claim(procedure)
    }

    /// Blocks until every operation added to the queue has finished. Like Foundation's, never
    /// call it from the queue's own operations or from `async` code.
    open override func waitUntilAllOperationsAreFinished() {
        // Blocking only because the caller asked for it through Foundation's API. The two
        // locks are never nested: the generation, read before each look at the members, tells
        // whether a wake came after that look (a finish empties the members, then wakes).
        lock.withLock { state.idleWaiters += 1 }
        while true {
            idle.lock()
            let generation = idleGeneration
            idle.unlock()
            if lock.withLock({ state.members.isEmpty }) { break }
            idle.lock()
            while idleGeneration == generation { idle.wait() }
            idle.unlock()
        }
        lock.withLock { state.idleWaiters -= 1 }
    }
}
