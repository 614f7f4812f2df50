import Foundation

// Dependencies between procedures are tracked here rather than by Foundation: corelibs'
// OperationQueue rescans every pending operation on every event, so parking not-ready
// operations in it is quadratic. A waiting procedure instead counts its unfinished
// dependencies; each dependency tells its waiters when it finishes. A plain `Operation`
// dependency is watched through its completion (`PlainOperationWatch`), or left to Foundation
// for a procedure that a plain `OperationQueue` (or a hand) starts.
extension Procedure {
    func reportDependencyMisuse(_ what: String) {
        ProcedureMisuse.report(
            .invalidDependency,
            "\(what); the call was ignored. Set up dependencies before adding procedures to a queue.",
            subject: self)
    }

    // MARK: - Waiting for dependencies

    enum ClaimResult {
        /// It now belongs to the claimer, which performs the ready action: usually
        /// `.schedule` (most procedures wait for nothing), `.keepWaiting` while it waits.
        case claimed(ReadyAction)
        case alreadyInThisQueue
        case inAnotherQueue
        case finished
        case started
    }

    /// Takes the procedure out of `initial`: it now belongs to `owner` (nil when started by
    /// hand or by a plain `OperationQueue`) and waits for its dependencies. Returns what
    /// happened: if it is ready already, what for (`.schedule` on the owner's scheduler,
    /// `.checkConditions`, or `.start` without an owner), for the caller to act on once the
    /// claim has returned (``perform(_:holding:from:)``); if it becomes ready later, it acts
    /// itself then (`dependencyDidFinish`). It never calls into the owner or its scheduler.
    func claim(owner: (any ProcedureOwner)?) -> ClaimResult {
        let step = lock.withLock { () -> ClaimStep in
            // The claim's own extra count holds the procedure while it registers with its
            // dependencies, so a dependency finishing meanwhile cannot release it early.
            switch state.lifecycle.claim(owner: owner, dependencies: state.dependencies.count) {
            case .refused(let result):
                return .refused(result)
            case .claimed:
                // Plain operations this one depends on: a plain OperationQueue starting it has
                // waited for them already; for everyone else they are watched through their
                // completion.
                let waitsForPlain = owner != nil && state.hasPlainDependencies
                guard state.dependencies.isEmpty && !waitsForPlain else {
                    return .register(state.dependencies, waitsForPlain: waitsForPlain)
                }
                // Nothing to register with (most procedures): the count goes back at once.
                return .ready(state.lifecycle.dependenciesFinished())
            }
        }
        switch step {
        case .refused(let result):
            return result
        case .ready(let readyAction):
            recordEnqueued(owner: owner)
            return .claimed(readyAction)
        case .register(let dependencies, let waitsForPlain):
            recordEnqueued(owner: owner)
            var alreadyFinished = 1  // the claim's own count
            for dependency in dependencies where !dependency.addWaiter(self) {
                alreadyFinished += 1
            }
            if waitsForPlain { waitForPlainDependencies() }
            let (readyAction, stillWaiting) = lock.withLock {
                (state.lifecycle.dependenciesFinished(alreadyFinished), state.phase == .waiting)
            }
            if stillWaiting {
                Procedure.checkForCycle(through: self)
                if WaitForGraph.mayHaveWaitsBeyondDependencies, mayCloseACycleThroughOtherWaits(owner: owner) {
                    WaitForGraph.checkWaits(of: self, limit: WaitForGraph.dependencySearchLimit)
                }
            }
            return .claimed(readyAction)
        }
    }

    private func recordEnqueued(owner: (any ProcedureOwner)?) {
        if ProcedureInstrumentation.isActive { ProcedureInstrumentation.record(.enqueued, self, owner: owner) }
    }

    /// What a claim does once the lifecycle accepted or refused it.
    private enum ClaimStep {
        case refused(ClaimResult)
        /// It waits for nothing: this is what becoming ready asks for.
        case ready(ReadyAction)
        /// It waits for these procedures (and, if so, plain operations) first.
        case register([Procedure], waitsForPlain: Bool)
    }

    /// Counts the unfinished plain-Operation dependencies as unfinished dependencies and
    /// watches each for its finish.
    private func waitForPlainDependencies() {
        for operation in super.dependencies where !operation.isFinished {
            // Not counted if a cancel made it ready meanwhile: nothing to watch for then.
            guard lock.withLock({ state.lifecycle.dependencyAdded() }) else { return }
            PlainOperationWatch.whenFinished(operation) { [self] in dependencyDidFinish() }
        }
    }

    /// Registers `waiter` to be told when this procedure finishes; false if it already has.
    func addWaiter(_ waiter: Procedure) -> Bool {
        lock.withLock {
            guard !state.waitersReleased else { return false }
            state.waiters.append(waiter)
            return true
        }
    }

    /// Registers `dependent` to hear `isReady` change when this procedure finishes (nothing
    /// to do if it already has).
    func addReadinessListener(_ dependent: Procedure) {
        lock.withLock {
            if state.phase != .finished { state.readinessListeners.append(dependent) }
        }
    }

    /// One of this procedure's dependencies finished.
    func dependencyDidFinish() {
        perform(lock.withLock { state.lifecycle.dependenciesFinished() }, from: .completion)
    }

    /// True if its dependency wait, which just began, may close a cycle through other kinds of
    /// waits: something waits for it already (a dependent, its children waiting for it to
    /// start), or it is a child of a running group that something may wait for.
    private func mayCloseACycleThroughOtherWaits(owner: (any ProcedureOwner)?) -> Bool {
        if hasWaiters || (asGroup?.hasUnfinishedChildren ?? false) { return true }
        guard let group = owner?.ownerRole.group, group.hasStartedChildren else { return false }
        return group.mayBeWaitedFor
    }

    /// A wait for a slot of `scheduler` began: only a slot holder that waits itself can lead
    /// back here, so the wait-for graph is searched only if it has one.
    func checkSlotWait(on scheduler: ProcedureScheduler) {
        if scheduler.hasWaitingHolders { WaitForGraph.checkCategoryOrSlotWait(of: self) }
    }

    /// True while the procedure waits in a queue for its dependencies.
    var isWaiting: Bool { lock.withLock { state.phase == .waiting } }

    /// The dependencies that are still waiting themselves (the only ones a cycle can run through).
    var waitingDependencies: [Procedure] {
        lock.withLock { state.dependencies }.filter { $0.isWaiting }
    }

    /// True if procedures wait on this one.
    var hasWaiters: Bool { lock.withLock { !state.waiters.isEmpty } }
}
