import Foundation
import ProceduresSupport

/// An `OperationQueue` for procedures (plain `Operation`s are welcome too).
///
/// It keeps a procedure whose dependencies have not finished out of the underlying
/// `OperationQueue` and hands it over the moment it becomes ready. corelibs Foundation
/// rescans every pending operation on each scheduling event, so a queue that parked 10,000
/// chained operations took about 21 s; handing over only ready procedures keeps chains and
/// fan-outs linear. `maxConcurrentOperationCount`, `isSuspended` and `underlyingQueue` work
/// as on `OperationQueue`.
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
/// Limitations, both from what corelibs Foundation lets a subclass see:
/// - Foundation's `operationCount` and `operations` (which a subclass cannot override) only
///   know the operations handed to the underlying queue: they do not include procedures still
///   waiting for dependencies (see ``waitingProcedureCount``). ``addBarrierBlock(_:)`` and
///   ``waitUntilAllOperationsAreFinished()`` do wait for them.
/// - Do not put one procedure on a plain `OperationQueue` *and* on a `ProcedureQueue`:
///   Foundation stops the process when an operation it already holds is enqueued again, and
///   offers no way to tell that a plain queue holds it.
open class ProcedureQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: `waiting`, `adding`, `storedDelegate` and `pendingBarrier` are guarded by
    // `lock`. (The lock also makes the runtime's exclusivity checks redundant: where they
    // showed in profiles they are off.)
    private let lock = Lock()
    @exclusivity(unchecked) private var waiting: [ObjectIdentifier: Procedure] = [:]
    /// Operations between reading `pendingBarrier` and landing in `waiting` or Foundation's
    /// queue: a barrier added meanwhile must wait for them too. An array, not a dictionary:
    /// it holds one entry per thread adding at the moment, and hashing cost more.
    @exclusivity(unchecked) private var adding: [Operation] = []
    private weak var storedDelegate: (any ProcedureQueueDelegate)?
    /// The last barrier block's procedure; operations added after it depend on it. It depends
    /// on every earlier operation, including the previous barrier.
    @exclusivity(unchecked) private var pendingBarrier: BarrierProcedure?
    /// Procedures whose conditions wait for the queue to be resumed (see `deferWhileSuspended`).
    @exclusivity(unchecked) private var suspendedGates: [Procedure] = []

    /// An empty queue, with Foundation's defaults (as many at once as the system allows).
    public override init() {
        super.init()
    }

    /// Told about additions and finishes. Held weakly.
    public var delegate: (any ProcedureQueueDelegate)? {
        get { lock.withLock { storedDelegate } }
        set { lock.withLock { storedDelegate = newValue } }
    }

    // MARK: - Adding

    /// Adds `operation`. A procedure runs once its dependencies have finished (or once it is
    /// cancelled). Adding a procedure twice, to a second queue, or after it finished is
    /// ignored and reported to ``ProcedureMisuse``.
    open override func addOperation(_ operation: Operation) {
        accept(operation)
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

    // MARK: - Hooks for subclasses in this package

    /// Where an operation added through the public API goes. The default enqueues it; a
    /// subclass may take it over first (a group's queue makes it a child, which the group
    /// then enqueues with ``enqueue(_:)``).
    func accept(_ operation: Operation) {
        enqueue(operation)
    }

    /// Where the procedure behind ``addBarrierBlock(_:)`` goes, once it depends on everything
    /// added before it. Not through ``enqueue(_:)``: the delegate is not told about barriers,
    /// and a barrier does not wait for itself.
    func acceptBarrier(_ barrier: Procedure) {
        _ = barrier.claim(queue: self, then: .enqueue(self))
    }

    /// Called once the queue has handled the finish of one of its procedures (delegate told,
    /// barrier released).
    func didFinish(_ procedure: Procedure, errors: [any Error]) {}

    /// Adds `operation` to this queue: claimed and tracked until ready, then handed to
    /// Foundation's queue. Returns false if a procedure could not be adopted (the misuse is
    /// reported).
    @discardableResult
    func enqueue(_ operation: Operation) -> Bool {
        guard let procedure = operation as? Procedure else {
            // corelibs would stop the process for these; report and ignore them instead.
            // (One already in another OperationQueue cannot be detected from outside.)
            guard !operation.isFinished, !operation.isExecuting else {
                ProcedureMisuse.report(
                    .addedAfterFinishing,
                    "an operation that is already running or finished was added to \(name ?? "a ProcedureQueue"); it was not added.",
                    subject: operation)
                return false
            }
            let (delegate, barrier) = beginAdding(operation)
            delegate?.procedureQueue(self, willAdd: operation)
            if delegate != nil { reportFinish(of: operation) }
            if let barrier { operation.addDependency(barrier) }
            super.addOperation(operation)
            lock.withLock { stopAdding(operation) }
            delegate?.procedureQueue(self, didAdd: operation)
            return true
        }
        let delegate: (any ProcedureQueueDelegate)?
        if procedure.isEnqueued {
            delegate = self.delegate  // a misuse, reported below
        } else {
            let barrier: BarrierProcedure?
            (delegate, barrier) = beginAdding(procedure)
            delegate?.procedureQueue(self, willAdd: procedure)
            if let barrier, barrier !== procedure { procedure.addDependency(barrier) }
        }
        // Once claimed, `noteWaiting` or `enqueueReady` takes it out of `adding`.
        switch procedure.claim(queue: self, then: .enqueue(self)) {
        case .claimed:
            delegate?.procedureQueue(self, didAdd: procedure)
            return true
        case .alreadyInThisQueue:
            reportAddMisuse(.addedTwice, procedure, "was added twice to the same queue (or group); the second add was ignored.")
        case .inAnotherQueue, .started:
            reportAddMisuse(.addedToSecondQueue, procedure, "already belongs to another queue or group (or was started by hand); a procedure runs on exactly one queue. The add was ignored; create a new procedure instead.")
        case .finished:
            reportAddMisuse(.addedAfterFinishing, procedure, "has already finished and cannot run again; the add was ignored. Create a new procedure instead.")
        }
        lock.withLock { stopAdding(procedure) }
        return false
    }

    /// Makes a plain operation tell the delegate when it finishes, through its `completionBlock`
    /// (which corelibs runs for every operation once it finished). The operation's own block
    /// is kept and runs first. Only for operations added while a delegate is set: others keep
    /// their block untouched.
    private func reportFinish(of operation: Operation) {
        let ownBlock = operation.completionBlock
        // Weak: the operation holds its completion block, which must not hold it back.
        operation.completionBlock = { [weak self, weak operation] in
            ownBlock?()
            guard let self, let operation else { return }
            self.delegate?.procedureQueue(self, didFinish: operation)
        }
    }

    /// Registers `operation` as being added and returns the delegate and the barrier it must
    /// wait for, in one critical section with `addBarrierBlock`'s: an operation is either
    /// seen by a new barrier (and comes before it) or sees it (and comes after).
    private func beginAdding(_ operation: Operation) -> ((any ProcedureQueueDelegate)?, BarrierProcedure?) {
        let (delegate, barrier) = lock.withLock { () -> ((any ProcedureQueueDelegate)?, BarrierProcedure?) in
            adding.append(operation)
            return (storedDelegate, pendingBarrier)
        }
        return (delegate, barrier?.isFinished == false ? barrier : nil)
    }

    /// Takes `operation` out of `adding`, if there. Call under `lock`; the caller still holds
    /// the operation, so it is not freed here.
    private func stopAdding(_ operation: Operation) {
        guard let index = adding.lastIndex(where: { $0 === operation }) else { return }
        adding.swapAt(index, adding.count - 1)
        adding.removeLast()
    }

    private func reportAddMisuse(_ kind: ProcedureMisuse.Kind, _ procedure: Procedure, _ what: String) {
        ProcedureMisuse.report(kind, "\(procedure.displayName) \(what)", subject: procedure)
    }

    /// Called by a procedure that claimed this queue and is still waiting for dependencies.
    func noteWaiting(_ procedure: Procedure) {
        lock.withLock {
            // Lock order: queue, then procedure. Nothing takes them the other way round.
            if procedure.isWaiting {
                waiting[ObjectIdentifier(procedure)] = procedure
                stopAdding(procedure)
            }
        }
    }

    /// A procedure became ready: hand it to Foundation's queue, which will start it.
    func enqueueReady(_ procedure: Procedure) {
        // Hand over first, then forget: in between the procedure is counted twice, never
        // zero times, so waitUntilAllOperationsAreFinished cannot miss it.
        super.addOperation(procedure)
        lock.withLock {
            waiting.removeValue(forKey: ObjectIdentifier(procedure))
            stopAdding(procedure)
        }
    }

    // MARK: - Conditions

    /// Suspends and resumes the queue, as on `OperationQueue`. While it is suspended, the
    /// conditions of its procedures are not checked and their exclusivity categories not
    /// taken: that happens once it is resumed.
    open override var isSuspended: Bool {
        get { super.isSuspended }
        set {
            super.isSuspended = newValue
            if !newValue { resumeDeferredConditionChecks() }
        }
    }

    /// Sets Foundation's flag only, for a caller that holds a lock of its own: it then calls
    /// ``resumeDeferredConditionChecks()`` once it has let go of that lock.
    func setSuspendedDeferringConditionChecks(_ suspended: Bool) {
        super.isSuspended = suspended
    }

    /// Begins the condition checks deferred while the queue was suspended, if it runs now.
    /// They evaluate conditions, which is user code: call it holding no lock.
    func resumeDeferredConditionChecks() {
        let resumed = lock.withLock { () -> [Procedure] in
            guard !super.isSuspended else { return [] }
            defer { suspendedGates = [] }
            return suspendedGates
        }
        for procedure in resumed { procedure.beginCheckingConditions() }
    }

    /// True if the queue is suspended: `procedure`'s conditions are then checked once it is
    /// resumed. (Read and recorded in one critical section with the resume's hand-over.)
    func deferWhileSuspended(_ procedure: Procedure) -> Bool {
        // Read once without the lock: most queues are not suspended. (A suspension racing
        // this add may let these conditions be checked early, as it may let Foundation
        // start an operation added at the same moment.)
        guard super.isSuspended else { return false }
        return lock.withLock {
            guard super.isSuspended else { return false }
            suspendedGates.append(procedure)
            return true
        }
    }

    // MARK: - Finishing

    func procedureWillFinish(_ procedure: Procedure, errors: [any Error]) {
        // The delegate was not told about the barrier's addition either.
        guard !(procedure is BarrierProcedure) else { return }
        delegate?.procedureQueue(self, willFinish: procedure, withErrors: errors)
    }

    func procedureDidFinish(_ procedure: Procedure, errors: [any Error]) {
        if let barrier = procedure as? BarrierProcedure {
            // Later operations need not wait for it any more; the caller still holds it, so
            // it is not freed under the lock.
            lock.withLock { if pendingBarrier === barrier { pendingBarrier = nil } }
        } else {
            delegate?.procedureQueue(self, didFinish: procedure, withErrors: errors)
        }
        didFinish(procedure, errors: errors)
    }

    // MARK: - Inspecting and cancelling

    /// How many procedures wait in this queue for their dependencies. Foundation's
    /// `operationCount` and `operations` (which cannot be overridden) do not include them.
    public var waitingProcedureCount: Int {
        // `waiting` briefly keeps a procedure that is being handed over (see `enqueueReady`),
        // which may even have finished already: count only those still waiting.
        lock.withLock { waiting.values.reduce(0) { $0 + ($1.isWaiting ? 1 : 0) } }
    }

    /// Cancels every operation in the queue, including waiting procedures and pending
    /// barriers (whose blocks then do not run).
    open override func cancelAllOperations() {
        let parked = lock.withLock { Array(waiting.values) }
        for procedure in parked { procedure.cancel() }
        super.cancelAllOperations()
    }

    /// Runs `barrier` once every operation added before it has finished, waiting procedures
    /// included; operations added after it start only once it has run, as on
    /// `OperationQueue`.
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
        // Not Foundation's barrier: that one depends only on the operations Foundation holds,
        // and makes everything Foundation receives later depend on it, including a procedure
        // that was waiting before the barrier and is handed over after it (a deadlock).
        // This one depends on both kinds; only operations *added* later wait for it.
        let procedure = BarrierProcedure(block: barrier)
        let (previous, parked) = lock.withLock { () -> (BarrierProcedure?, [Operation]) in
            defer { pendingBarrier = procedure }
            return (pendingBarrier, Array(waiting.values) + adding)
        }
        _ = consume previous  // released outside the lock: it may hold the last reference to user state
        // Foundation's list is read after the other two, so an operation handed over in
        // between is in at least one of them (in several: depend on it once). An operation
        // another thread added since `pendingBarrier` was set already depends on the barrier:
        // it comes after, and depending on it as well would deadlock.
        var seen = Set<ObjectIdentifier>()
        for operation in super.operations + parked where seen.insert(ObjectIdentifier(operation)).inserted {
            if operation.dependencies.contains(where: { $0 === procedure }) { continue }
            procedure.addDependency(operation)
        }
        acceptBarrier(procedure)
    }

    /// Blocks until every operation, waiting procedures included, has finished. Like
    /// Foundation's, never call it from the queue's own operations or from `async` code.
    open override func waitUntilAllOperationsAreFinished() {
        // Blocking only because the caller asked for it through Foundation's API.
        while true {
            let parked = lock.withLock { Array(waiting.values) }
            for procedure in parked { procedure.waitUntilFinished() }
            super.waitUntilAllOperationsAreFinished()
            if lock.withLock({ waiting.isEmpty }) { return }
        }
    }
}
