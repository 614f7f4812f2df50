import Foundation
import ProceduresSupport

/// A procedure made of other operations, its children, which run on the group's own queue.
///
/// The group starts its children when it executes and finishes once every child has
/// finished (a child procedure counts once its did-finish observers have run, so they may
/// still add children or cancel the group), including children added while it runs and
/// operations its children ``Procedure/produce(_:)``. Its errors are its children's errors (pass them through
/// ``transformChildErrors(_:from:)`` to rewrite or drop them), each root cause once: a child
/// cancelled because the sibling it injects its input from failed keeps its
/// ``ProcedureError/dependencyFailed(name:errors:)``, but the group leaves that repeat of the
/// sibling's errors out of its own.
///
/// ```swift
/// let group = GroupProcedure(operations: [download, parse, store])
/// group.maxConcurrentOperationCount = 2
/// group.addDidFinishBlockObserver { group, errors in print("all done", errors) }
/// queue.addOperation(group)
/// ```
///
/// Cancelling the group cancels every child, those added later included (a child of a group
/// cancelled with errors gets ``ProcedureError/parentCancelled(errors:)``), all at once, so
/// that no child starts because another was cancelled and finished. The group still finishes
/// only after every child has finished, and then it carries its own cancel errors (and the
/// errors its children had before the cancel) rather than the echoes of the cancel its
/// children report. A cancelled group runs its cancelled children even if it is suspended,
/// so it finishes promptly. A group cancelled before it started never calls `execute()`, but
/// still lets its (cancelled) children finish first.
///
/// The group's will-add and did-add observers hear of every child once: the children given
/// to `init` when the group starts them (before any of them can start), every child added
/// later when it is added, and the operations its children ``Procedure/produce(_:)``. Like
/// every callback of the group they never overlap another one: reported while another
/// callback of the group runs, they wait for it, so a child may then have started before its
/// will-add observers run. A child that cannot be adopted gets no did-add, and one that
/// already belongs to a queue or group (this one included) no will-add either.
///
/// A child belongs to the group from the moment it is added: it counts as enqueued, and
/// adding it to a queue or another group is reported as misuse. A child that cannot be
/// adopted (already finished, already on a queue, the group itself, or one of the group's own
/// dependencies) is not added, and the call is reported.
///
/// A group holds a slot of its queue's width while it runs, except while every child that
/// held one of the group's own slots has given it back to wait (a ``RetryProcedure`` in its
/// back-off): the group then gives its slot back too, and asks for one again before another
/// of its children starts.
///
/// A subclass that overrides ``execute()`` must call `super.execute()`; children it adds
/// before or after that call all belong to the group. A group finishes by itself: calling
/// `finish()` on one is ignored and reported (cancel it to stop it early).
open class GroupProcedure: Procedure, ProcedureOwner, @unchecked Sendable {
    // @unchecked: `group` (its state: GroupProcedureState.swift) is guarded by `groupLock`;
    // `scheduler` is immutable and locks for itself.
    let groupLock = InlineLock()
    // Unchecked: only touched under `groupLock` (or in `init`, before it is shared), which
    // already makes each access exclusive.
    @exclusivity(unchecked) var group = State()
    /// Runs the children: no Foundation queue is involved. Suspended until the group starts.
    let scheduler = ProcedureScheduler(suspended: true)

    /// A group of `operations`, which may be empty; add more with ``addChild(_:)``.
    public init(operations: [Operation] = []) {
        super.init(role: .group)
        WaitForGraph.liveGroups.add(1, ordering: .relaxed)
        group.awaitsFinishCall = !finishesAutomatically  // not shared yet: no lock needed
        group.adoptingInitialChildren = true  // not shared yet: no lock needed
        addChildren(operations)
        group.initialChildCount = group.children.count
        group.adoptingInitialChildren = false
    }

    /// True if the group's `execute()` is the library's: its class is a built-in one, not a
    /// subclass (whose `execute()` is user code that may follow the start of its children).
    /// Each built-in subclass answers with its own depth.
    var executeIsBuiltIn: Bool { isInstance(levelsBelowGroupProcedure: 0) }

    /// True if the group's class is exactly `levels` subclasses below `GroupProcedure`: asked
    /// by a built-in subclass with its own depth, whether the group is an instance of that
    /// class itself, not of a subclass. (Superclasses are walked: comparing with a generic
    /// class's metatype would look its metadata up each time.)
    final func isInstance(levelsBelowGroupProcedure levels: Int) -> Bool {
        var type: AnyClass = Swift.type(of: self)
        for _ in 0..<levels {
            guard let superclass = _getSuperclass(type) else { return false }
            type = superclass
        }
        return type == GroupProcedure.self
    }

    /// True (the default) if the group finishes when its last child does. A subclass that
    /// overrides it to return false (ProcedureKit's `disableAutomaticFinishing`) finishes
    /// once every child has finished *and* the subclass has called ``Procedure/finish(withErrors:)`` (whose errors
    /// join the children's), in either order, so the subclass can keep adding children
    /// until it decides it is done. It must then call `finish` in every case, cancellation
    /// included (from `procedureDidCancel(withErrors:)`, say); a second call is reported as
    /// ``ProcedureMisuse/Kind/finishedTwice``.
    ///
    /// ```swift
    /// final class Crawl: GroupProcedure, @unchecked Sendable {
    ///     override var finishesAutomatically: Bool { false }
    ///     override func execute() {
    ///         super.execute()
    ///         addChild(FetchPage(1))
    ///     }
    ///     // … finish() once the last page was seen
    /// }
    ///
    /// It is read once, when the group is made: return a constant.
    open var finishesAutomatically: Bool { true }

    deinit {
        WaitForGraph.liveGroups.subtract(1, ordering: .relaxed)
        releaseChildrenIfNeverStarted()
    }

    // MARK: - Children

    /// Every child added so far, in the order they were added.
    public final var children: [Operation] { groupLock.withLock { group.children } }

    /// How many children may run at once (default: as many as the system allows).
    public final var maxConcurrentOperationCount: Int {
        get { scheduler.maxConcurrentOperationCount }
        set { scheduler.maxConcurrentOperationCount = newValue }
    }

    /// While true, no further child starts (running ones carry on). A cancelled group ignores
    /// it, so that its cancelled children can finish.
    public final var isSuspended: Bool {
        get { groupLock.withLock { group.userSuspended } }
        set {
            groupLock.withLock { group.userSuspended = newValue }
            applySuspension()
        }
    }

    /// `thread`: see ``ProcedureScheduler/setSuspended(_:decision:handingLoopTo:)``. True if
    /// the loop this started was handed to it.
    @discardableResult
    func applySuspension(handingLoopTo thread: DrainLoopThread? = nil) -> Bool {
        let (decision, suspension) = groupLock.withLock { group.decideSuspension() }
        // The cancellation is read after the decision's number is taken: a cancel, which
        // decides again once it is recorded, either comes later (and decides last) or is seen.
        let suspended = switch suspension {
        case .suspended: true
        case .resumed: false
        case .suspendedUnlessCancelled: !isCancelled
        }
        let (resumed, handed) = scheduler.setSuspended(suspended, decision: decision, handingLoopTo: thread)
        // Resumed children evaluate their conditions (user code) here, holding no lock: a
        // loop handed to this thread starts elsewhere first.
        if handed, !resumed.isEmpty { scheduler.startLoopHandedToThisThread() }
        for child in resumed { child.beginCheckingConditions() }
        return handed
    }

    // MARK: - Owning children (ProcedureOwner)

    func addProduced(_ operation: Operation) {
        adoptChild(operation)
    }

    func procedureWillFinish(_ procedure: Procedure, errors: [any Error]) {}

    func procedureDidFinish(_ procedure: Procedure, errors: [any Error]) {
        if let runner = procedure.asOperationRunner {
            groupLock.withLock { group.runners[ObjectIdentifier(runner.operation)] = nil }
            childDidFinish(runner.operation, errors: [])
        } else {
            childDidFinish(procedure, errors: errors)
        }
    }

    /// True once a child asked for ``ProcedureQueue/current`` (the only thing that makes a
    /// group create a Foundation queue); for tests.
    package var hasQueueFacade: Bool { groupLock.withLock { group.facade != nil } }

    /// What ``ProcedureQueue/current`` answers inside a child: a queue whose operations become
    /// the group's children. Made only when asked for.
    var queueFacade: ProcedureQueue {
        if let facade = groupLock.withLock({ group.facade }) { return facade }
        // Made outside the lock (it is Foundation's initialiser); the first one stored wins.
        let made = GroupQueue(group: self)
        return groupLock.withLock {
            if let facade = group.facade { return facade }
            group.facade = made
            return made
        }
    }

    var nameInMisuseReports: String { displayName }

    /// Adds a child, which starts once the group executes (at once if it already does).
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
    /// the same time as another of them), and not for children cancelled along with the group
    /// (their errors are echoes of the group's cancel).
    open func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        errors
    }

    /// Starts the children. Subclasses that override it must call `super.execute()`.
    open override func execute() {
        startChildren()
    }

    // MARK: - Adopting children

    /// Every way a child arrives ends here (``addChild(_:)``, `produce` from a child, an add
    /// to the group's queue): it is counted before its queue tracks it.
    /// `loop`: the group's scheduler, when its drain loop on this thread takes its next step
    /// soon (see ``claim(_:handingTo:)``); true if the child was handed to it.
    @discardableResult
    func adoptChild(_ child: Operation, handingTo loop: ProcedureScheduler? = nil) -> Bool {
        // A group cannot contain itself, nor a procedure it waits for: it would never finish.
        // Read with whether anyone observes the group, in one critical section: every child
        // takes this lock, from whichever thread adds it, so each time counts.
        let procedure = child as? Procedure
        let (ownDependency, observed) = lock.withLock { () -> (Bool, Bool) in
            let own = procedure.map { child in state.dependencies.contains { $0 === child } } ?? false
            return (own, !state.observers.isEmpty)
        }
        guard child !== self, !ownDependency else {
            ProcedureMisuse.report(
                .invalidDependency,
                "\(displayName) cannot have \(child === self ? "itself" : "one of its own dependencies") as a child: it would wait for itself. The child was not added.",
                subject: self)
            return false
        }
        // A procedure that already belongs elsewhere is refused before any observer hears of
        // it (its claim reports why); one racing to another owner is refused by its claim.
        if let procedure, procedure.isEnqueued {
            _ = claim(procedure)
            return false
        }
        let (accepted, initial) = groupLock.withLock { () -> (Bool, Bool) in
            guard !group.isFinishing else { return (false, group.adoptingInitialChildren) }
            group.children.append(child)
            group.unfinishedChildren += 1
            return (true, group.adoptingInitialChildren)
        }
        // Children given to init are reported when the group starts them; the others now,
        // through the group's events so that the observers never overlap its other callbacks.
        let report = accepted && !initial && observed
        if report { reportAddition(of: child, will: true) }
        guard accepted else {
            ProcedureMisuse.report(
                .childAddedToFinishingGroup,
                "a child was added to \(displayName) after it began finishing; the child was not added and will not run. Add children before the group's last child finishes.",
                subject: self)
            return false
        }
        // Read once the child is among the children, so that a cancel or a progress tracker
        // that comes later finds it there, and one that came before is seen here.
        let (cancelRequest, tracker) = lock.withLock { (cancelRequestLocked, state.progress.tracker) }
        if let cancelRequest { cancelAsChild(child, groupErrors: cancelRequest) }
        let (claimed, handed) = enqueue(child, handingTo: loop)
        guard claimed else {
            groupLock.withLock {
                group.unfinishedChildren -= 1
                if let index = group.children.lastIndex(where: { $0 === child }) { group.children.remove(at: index) }
            }
            send(.perform { [self] in finishIfDone() })
            return false
        }
        if let tracker { progressDidAdopt(child, tracker: tracker) }  // Progress/GroupProgress.swift
        if report { reportAddition(of: child, will: false) }
        return handed
    }

    /// Tells the will-add (or did-add) observers about `child`: right away if no other
    /// callback of the group is running, else right after it.
    private func reportAddition(of child: Operation, will: Bool) {
        send(.perform { [self] in
            for observer in observers {
                if will { observer.procedure(self, willAdd: child) } else { observer.procedure(self, didAdd: child) }
            }
        })
    }

    /// Claims a child for the group's scheduler; `claimed` false if it could not be adopted
    /// (reported). `handed`: it went to `loop` (see ``claim(_:handingTo:)``).
    private func enqueue(_ child: Operation, handingTo loop: ProcedureScheduler?) -> (claimed: Bool, handed: Bool) {
        if let procedure = child as? Procedure { return claim(procedure, handingTo: loop) }
        // A plain child runs inside a runner, which waits for its dependencies and starts it.
        guard let runner = runner(forPlain: child) else { return (false, false) }
        let added = groupLock.withLock { () -> Bool in
            guard group.runners[ObjectIdentifier(child)] == nil else { return false }
            group.runners[ObjectIdentifier(child)] = runner
            return true
        }
        guard added else {
            reportSecondAdd(of: child)
            return (false, false)
        }
        runner.adoptOperationDependencies()
        if cancelRequest != nil { runner.cancel() }
        return (claim(runner), false)
    }

    // MARK: - Running and finishing

    var ownedProcedures: [Procedure] {
        groupLock.withLock { group.children }.compactMap { $0 as? Procedure }
    }

    var ownerRole: ProcedureOwnerRole { .group(self) }

    var schedulerMayBeSuspended: Bool { scheduler.mayBeSuspended }

    /// True once it has started its children; until then they wait for it to (a group that
    /// has a slot but takes back the categories it gave up to wait for it has not).
    var hasStartedChildren: Bool { groupLock.withLock { group.hasStarted } }

    /// True while some of its children have not finished: they wait for it to start them, and
    /// it for them once it has.
    var hasUnfinishedChildren: Bool { groupLock.withLock { group.unfinishedChildren > 0 } }

    /// Its unfinished children once it has started them: what it waits for while it runs.
    var childrenWaitedFor: [Procedure] {
        groupLock.withLock { group.hasStarted ? group.children : [] }.compactMap { $0 as? Procedure }.filter { !$0.isFinished }
    }

    func startChildren() {
        // Runs among the group's callbacks (execute, or the start of a cancelled group).
        scheduler.setHolder(self)  // until the group finishes (see finishIfDone)
        // It holds its owner's slot while it waits for its children (for the wait-for graph).
        let ownerScheduler = lock.withLock { state.owner?.scheduler }
        ownerScheduler?.holderBeganWaiting()
        // Only observers need the list: most groups have none, and then no array is made.
        let observers = self.observers
        let initial = groupLock.withLock { () -> ArraySlice<Operation> in
            defer { group.initialChildCount = 0 }
            return observers.isEmpty ? [] : group.children.prefix(group.initialChildCount)
        }
        for child in initial {
            for observer in observers { observer.procedure(self, willAdd: child) }
        }
        let unfinished = groupLock.withLock { group.start(ownerScheduler: ownerScheduler) }
        let childless = unfinished == 0
        // Its children's waits begin with it: they close a cycle only if one of them waits for
        // something outside the group (one neither ready nor running here) and something
        // waits for the group (its slot, or the group itself).
        let childrenMayWait = unfinished > 0 && unfinished > scheduler.counts.running + scheduler.counts.waiting
        // Started inside its run on a loop, with only the library's code to run until that run
        // returns (no observers, its own execute()), the group leaves its first loop to that
        // thread: the loop takes it as soon as the run returns, and no Dispatch block is spent.
        let thread = observers.isEmpty && executeIsBuiltIn ? DrainLoopThread.current.loopRunning(self) : nil
        let handed = applySuspension(handingLoopTo: thread)
        if handed {
            // A callback of the group handled on this thread before its run returns (a cancel,
            // say) is user code: the loop starts elsewhere first.
            lock.withLock { state.mailbox.oweLoopStart() }
        }
        for child in initial {
            for observer in observers { observer.procedure(self, didAdd: child) }
        }
        // With children, the last one to finish has the group check whether it is done. Without,
        // the group checks after execute() returns, so children a subclass adds after calling
        // super.execute() still count.
        if childless { post(.perform { [self] in finishIfDone() }) }
        if childrenMayWait, mayBeWaitedFor {
            if handed { scheduler.startLoopHandedToThisThread() }  // a deadlock's report may run user code
            WaitForGraph.checkWaits(of: self)
        }
    }

    /// A group finishes when its last child does; `finish()` from outside is misuse, unless
    /// the subclass turned `finishesAutomatically` off (then it is the call the group waits for).
    private func finishCalledByHand(errors: [any Error]) {
        let accepted = groupLock.withLock { () -> Bool? in
            guard group.awaitsFinishCall else { return nil }
            guard group.finishCallErrors == nil else { return false }
            group.finishCallErrors = errors
            return true
        }
        switch accepted {
        case nil: reportFinishedByHand()
        case false?: reportSecondFinish()
        case true?: send(.perform { [self] in finishIfDone() })
        }
    }

    /// A child finished (told through `procedureDidFinish`, as its owner).
    func childDidFinish(_ child: Operation, errors: [any Error]) {
        guard errors.isEmpty else { return handleChildFinishAmongCallbacks(child, errors: errors) }
        // Without errors there is nothing to hand to user code: only the count changes. The
        // last child asks the group to check, among its callbacks, whether it is done (so a
        // subclass adding children after `super.execute()` still counts them).
        let last = groupLock.withLock { () -> Bool in
            group.unfinishedChildren -= 1
            return group.unfinishedChildren == 0
        }
        progressChildDidFinish(child)  // Progress/GroupProgress.swift
        if last { Trampoline.run(self) { group in group.send(.perform { group.finishIfDone() }) } }
    }

    /// Handles a child's finish among the group's callbacks (`countOut(_:errors:)`): for
    /// errors, which pass through `transformChildErrors`, and for subclasses that act on
    /// every child.
    func handleChildFinishAmongCallbacks(_ child: Operation, errors: [any Error]) {
        // Trampolined: the group may finish here, and its parent group with it, and so on;
        // nested inline, deep nesting would grow the stack one level per group.
        Trampoline.run((self, child, errors)) { group, child, errors in group.send(.operationFinished(child, errors: errors)) }
    }

    /// A child finished: its errors are kept (unless they echo a cancel) and it is counted out.
    private func countOut(_ child: Operation, errors: [any Error]) {
        if !errors.isEmpty, !isEchoOfGroupCancel(child), let procedure = child as? Procedure {
            assertNoLibraryLockHeld("transformChildErrors(_:from:)")
            let kept = transformChildErrors(withoutSiblingEchoes(errors, of: child), from: procedure)
            groupLock.withLock { group.childErrors.append(contentsOf: kept) }
        }
        groupLock.withLock { group.unfinishedChildren -= 1 }
        progressChildDidFinish(child)  // Progress/GroupProgress.swift
        finishIfDone()
    }

    private func finishIfDone() {
        guard let finish = groupLock.withLock({ group.finishIfDone() }) else { return }
        scheduler.setHolder(nil)
        finish.ownerScheduler?.holderStoppedWaiting()
        finishAutomatically(withErrors: finish.errors)
    }

    // MARK: - The group's part in a procedure's life (cancellation's rules and code:
    // GroupProcedure+Cancellation.swift)

    override func respond(to moment: BuiltInMoment) -> BuiltInResponse {
        switch moment {
        case .cancelRequested(let errors):
            cancelChildren(parentErrors: errors)
        case .cancelTookEffect(let errors):
            cancelChildren(parentErrors: errors)  // usually done already; repeating it is harmless
        case .startedWhileCancelled:
            startChildren()
        case .operationFinished(let child, let errors):
            countOut(child, errors: errors)
        case .finishCalledByHand(let errors):
            finishCalledByHand(errors: errors)
        case .dependencyProposed(let operation):
            // A group must not wait for one of its own children.
            let isChild = groupLock.withLock { group.children.contains { $0 === operation } }
            return isChild ? .handled : super.respond(to: moment)
        }
        return .handled
    }
}
