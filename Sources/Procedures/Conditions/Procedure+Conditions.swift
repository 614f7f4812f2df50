import Foundation

extension Procedure {
    /// Makes the procedure run only if `condition` holds. See ``Condition``.
    ///
    /// Add conditions before adding the procedure to a queue (or starting it). Afterwards the
    /// call is ignored and reported as ``ProcedureMisuse/Kind/conditionAddedAfterEnqueue``.
    public final func addCondition(_ condition: Condition) {
        let accepted = lock.withLock { () -> Bool in
            guard state.lifecycle.addGate() else { return false }
            state.conditions.add(condition)
            return true
        }
        if !accepted {
            ProcedureMisuse.report(
                .conditionAddedAfterEnqueue,
                "addCondition(\(condition.name)) was called on \(displayName) after it was added to a queue or started; the condition was ignored. Add conditions before adding the procedure to a queue.",
                subject: self)
        }
    }

    /// Adds several conditions, in order. See ``addCondition(_:)``.
    public final func addConditions(_ conditions: some Sequence<Condition>) {
        for condition in conditions { addCondition(condition) }
    }

    /// The conditions added to the procedure, in order.
    public final var conditions: [Condition] {
        lock.withLock { state.conditions.array }
    }

    /// Dependencies finished; conditions and categories come next. Deferred while the queue
    /// is suspended (a group's children wait for the group to start): a condition checked, or
    /// a category taken, long before the procedure can run would be stale or hold others up.
    func beginCheckingConditions() {
        // The owner is only asked, not copied: it and its scheduler are shared with the threads
        // running its other procedures, and are copied below only if it may be suspended.
        let (atOnce, gate, observers, mayPark, cancelled) = lock.withLock {
            () -> (Condition?, ConditionGate?, [any ProcedureObserver]?, Bool, Bool) in
            let mayPark = state.lifecycle.ownerSchedulerMayBeSuspended
            // One that may be parked gets its gate, which keeps where its checks are.
            let atOnce = mayPark ? nil : state.conditions.checkedAtOnce
            let gate = atOnce == nil ? state.conditions.gateForSteps() : nil
            return (atOnce, gate, state.observers.isEmpty ? nil : state.observers, mayPark, state.cancellation != .none)
        }
        guard atOnce != nil || gate != nil else { return }
        // A deadline covers the wait for conditions and categories: it starts now. (One that
        // has passed cancels the procedure here; the gate then stops at its first step.)
        for case let observer as any ConditionWaitObserver in observers ?? [] { observer.procedureBeginsWaitingForConditions(self) }
        if let atOnce {
            // An observer told may have cancelled it: asked again (nothing is told usually).
            guard !(observers == nil ? cancelled : lock.withLock { state.cancellation != .none }) else { return }
            return checkAtOnce(atOnce)
        }
        guard let gate else { return }
        // A suspension racing with this check is unordered with it anyway: as if it came just after.
        if mayPark, let owner = lock.withLock({ state.owner }), owner.scheduler.parkWhileSuspended(self) {
            gate.waitForQueueResume(self)
            return
        }
        gate.begin(self)
    }

    /// Checks its one condition, which answers at once and waits for nothing first (see
    /// ``ProcedureConditions``): what the gate's steps would come to, with no gate.
    private func checkAtOnce(_ condition: Condition) {
        let result = condition.immediateResultIfRequirementsMet(for: self)
        if ConditionGate.apply(result, of: condition, to: self) { conditionGateDidOpen() }
    }

    /// The completion of the procedure's only condition was called.
    func soleConditionAnswered(_ result: ConditionResult) {
        // The gate shares the procedure's lock: the answer is recorded in the same critical
        // section that finds the gate. Usually the evaluation that is still on the stack takes it.
        let step = lock.withLock { state.gate?.record(result, index: 0) }
        guard let step, step != .none, let gate = lock.withLock({ state.gate }) else { return }
        gate.continueAfter(step, result, index: 0, procedure: self)
    }

    /// The exclusivity manager granted the procedure its categories: its gate opens.
    /// `loopComing`: see `ExclusivityState.Grants.run(loopComing:)`; true if the procedure was
    /// handed to that loop.
    @discardableResult
    func exclusivityGranted(loopComing: ProcedureScheduler? = nil) -> Bool {
        enum Next {
            case open(ReadyAction, holding: ExclusivityRequest?)
            case startReturning(ConditionGate, ConditionGateStateMachine.ReturningStart)
        }
        // One critical section decides between the two, as between two it could change.
        let next = lock.withLock { () -> Next in
            if let gate = state.gate, let start = gate.takeReturningStartHoldingLock() { return .startReturning(gate, start) }
            return .open(state.lifecycle.gateOpened(), holding: state.gate?.request)
        }
        switch next {
        case .open(let action, let request): return perform(action, holding: request, from: .completion, loopComing: loopComing)
        case .startReturning(let gate, let start):
            gate.startReturning(start, of: self)
            return false
        }
    }

    /// The conditions were satisfied and the categories are held: the procedure is ready.
    func conditionGateDidOpen() {
        let (action, request) = lock.withLock { (state.lifecycle.gateOpened(), state.gate?.request) }
        perform(action, holding: request, from: .completion)
    }

    /// What the procedure's conditions wait for, while it waits.
    var conditionGateSummary: String? {
        let conditions = lock.withLock { state.lifecycle.isCheckingGate ? state.conditions : .none }
        switch conditions {
        case .none: return nil
        case .one(let condition): return "waiting for condition \(condition.name)"  // checked at once
        case .gate(let gate): return gate.summary(of: self)
        }
    }
}
