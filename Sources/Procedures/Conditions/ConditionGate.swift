import Foundation
import ProceduresSupport

/// Checks one procedure's conditions, then takes its exclusivity categories, then lets it
/// become ready; releases the categories when it finishes.
///
/// Steps, each started by the completion of the one before (so no thread waits): the
/// conditions' dependencies (produced ones are added to the procedure's queue first), then
/// each condition in order, then the categories. A cancel stops the steps: the procedure's
/// own cancel path makes it ready, and it finishes cancelled.
final class ConditionGate: ExclusivityRequest, @unchecked Sendable {
    // @unchecked: `setup` is written under the owning procedure's lock while the procedure is
    // still initial, and by `begin` before any step reads it; the steps read it without a
    // lock (the procedure's lock, taken by whatever started each step, orders them), and other
    // threads read its categories only once the machine has claimed them, under that lock.
    // `machine` is guarded by the procedure's own lock (one gate per procedure; the gate never
    // calls out while holding it).

    /// What the gate checks, fixed once its steps begin.
    struct Setup {
        var conditions = ConditionList()
        /// The categories its conditions claim, each once, gathered by `begin`
        /// (`mutuallyExclusiveCategories` is open, so it is not asked under the lock that
        /// `addCondition` holds).
        var categories = CategoryList()
    }

    // Unchecked: written only before the steps begin (see above), never while they read it.
    @exclusivity(unchecked) private var setup = Setup()
    // Unchecked: only touched under the procedure's lock, which already makes each access exclusive.
    @exclusivity(unchecked) private var machine = ConditionGateStateMachine()

    /// The conditions, in order.
    var conditions: ConditionList { setup.conditions }

    /// Adds a condition. Under the procedure's lock, while it is initial.
    func add(_ condition: Condition) {
        setup.conditions.append(condition)
    }

    /// What the gate waits for, for the procedure's state summary and waiting reason
    /// (described only when asked).
    enum Waiting {
        case nothing
        case queueResume
        case dependencies([Procedure])
        /// The condition at this index (of `conditions`) is being evaluated.
        case condition(index: Int)
        case exclusivity([String])
    }

    /// Its claim on its categories (it is its own request), from when it asks for them until
    /// its procedure finishes. Under the procedure's lock.
    var request: ExclusivityRequest? { machine.hasClaimed ? self : nil }

    /// Whether it has asked for categories (``request`` is not nil). Under the procedure's lock.
    var hasClaimedCategories: Bool { machine.hasClaimed }

    // The gate keeps no reference to its procedure (the procedure holds the gate): every
    // call carries the procedure, whose lock guards the gate, and keeps it alive meanwhile.
    override init() {}

    /// A gate that checks `first`, then `second` if given.
    convenience init(checking first: Condition, then second: Condition? = nil) {
        self.init()
        add(first)
        if let second { add(second) }
    }

    /// "waiting for …", while the gate waits for something.
    func summary(of procedure: Procedure) -> String? {
        switch currentWait(of: procedure).waiting {
        case .nothing: return nil
        case .queueResume: return "waiting for its queue to be resumed before checking its conditions"
        case .dependencies(let dependencies):
            return "waiting for the dependencies of its conditions (\(dependencies.map(\.displayName).joined(separator: ", ")))"
        case .condition(let index): return "waiting for condition \(conditions[index].name)"
        case .exclusivity(let categories): return "waiting for exclusivity (\(categories.joined(separator: ", ")))"
        }
    }

    /// What the gate waits for now, with its exclusivity request while it waits for categories.
    /// Nothing once the gate opened or the procedure was cancelled, whatever step it reached.
    func currentWait(of procedure: Procedure) -> (waiting: Waiting, request: ExclusivityRequest?) {
        procedure.lock.withLock {
            let checking = procedure.state.lifecycle.isCheckingGate && procedure.state.cancellation == .none
            return (checking ? machine.waiting(claiming: setup.categories.array) : .nothing, request)  // categories read only if claimed
        }
    }

    func waitForQueueResume(_ procedure: Procedure) {
        procedure.lock.withLock { machine.park() }
    }

    // MARK: - Steps

    func begin(_ procedure: Procedure) {
        var waitsFirst = false
        for index in 0..<conditions.count {
            let condition = conditions[index]
            // Read by other threads (`currentWait`) only once the gate has claimed them, under
            // the procedure's lock, which the claim takes after this.
            condition.addCategories(to: &setup.categories)
            if condition.mayWaitForProcedures { waitsFirst = true }
        }
        // Usually no condition waits for anything first: nothing to gather, and no wait that
        // could lead back to the procedure.
        guard waitsFirst else {
            evaluate(procedure, from: 0)
            return
        }
        var produced: [Procedure] = []
        var dependencies: [Procedure] = []
        Condition.collectDependencies(of: conditions, into: &dependencies, produced: &produced)
        // A wait about to begin: if it would close a cycle, the procedure is cancelled instead.
        let waits = dependencies.map { WaitEdge(waiter: procedure, kind: .conditionDependency, target: $0) }
        if !waits.isEmpty, WaitForGraph.check(waits, unclaimed: true, prospective: true) { return }
        guard !dependencies.isEmpty else {
            evaluate(procedure, from: 0)
            return
        }
        let (proceeding, owner) = procedure.lock.withLock {
            // Same lock as the cancel hook's: a cancel decided before this stops here, one
            // decided after finds `produced` and cancels them.
            (machine.beginGathering(dependencies, produced: produced, cancelled: procedure.state.cancellation != .none), procedure.state.owner)
        }
        guard proceeding else { return }
        for operation in produced {
            if let owner { owner.addProduced(operation) } else { operation.start() }
        }
        for dependency in dependencies {
            dependency.addObserver(ConditionDependencyObserver(gate: self, procedure: procedure))
        }
        dependencyDidFinish(for: procedure)
    }

    func dependencyDidFinish(for procedure: Procedure) {
        let done = procedure.lock.withLock { machine.dependencyFinished() }
        if done { evaluate(procedure, from: 0) }
    }

    /// Evaluates conditions from `start` on; a condition that answers before `evaluate`
    /// returns continues the loop here, one that answers later continues it from its answer.
    private func evaluate(_ procedure: Procedure, from start: Int) {
        var index = start
        while index < conditions.count {
            let condition = conditions[index]
            if condition.isSatisfiedByDefinition {
                // Nothing to wait for, so no completion to set up (its categories come after).
                if let unmet = condition.unmetRequirement() {
                    guard Self.apply(.failed(unmet), of: condition, to: procedure) else { return }
                }
                index += 1
                continue
            }
            guard procedure.lock.withLock({ machine.beginEvaluating(index, cancelled: procedure.state.cancellation != .none) }) else { return }
            // The last condition satisfied, with no categories to take (the usual case): the
            // gate opens in the critical section that records the answer.
            let opensHere = index == conditions.count - 1 && setup.categories.isEmpty
            // A condition that answers at once is handed no completion.
            let answeredAtOnce = condition.answersAtOnce ? condition.immediateResultIfRequirementsMet(for: procedure) : nil
            if answeredAtOnce == nil {
                if conditions.count == 1 {
                    // The only condition: its answer cannot be mistaken for another's, so the
                    // completion carries just the procedure, which then needs no context allocated.
                    condition.evaluateIfRequirementsMet(for: procedure) { [procedure] result in
                        procedure.soleConditionAnswered(result)
                    }
                } else {
                    condition.evaluateIfRequirementsMet(for: procedure) { [self, index] result in
                        answer(result, index: index, procedure: procedure)
                    }
                }
            }
            let (inline, opened) = procedure.lock.withLock { () -> (ConditionResult?, ReadyAction?) in
                let answer: ConditionResult?
                if let answeredAtOnce {
                    machine.answeredAtOnce()
                    answer = answeredAtOnce
                } else {
                    answer = machine.evaluateReturned()
                }
                guard let result = answer else { return (nil, nil) }
                guard opensHere, case .satisfied = result else { return (result, nil) }
                return (result, procedure.state.lifecycle.gateOpened())
            }
            if let opened {
                procedure.perform(opened, from: .completion)
                return
            }
            guard let result = inline else { return }
            guard Self.apply(result, of: condition, to: procedure) else { return }
            index += 1
        }
        acquireCategories(procedure)
    }

    /// A condition's completion was called.
    func answer(_ result: ConditionResult, index: Int, procedure: Procedure) {
        let action = procedure.lock.withLock { record(result, index: index) }
        continueAfter(action, result, index: index, procedure: procedure)
    }

    /// Records an answer. Called under the procedure's lock.
    func record(_ result: ConditionResult, index: Int) -> ConditionGateStateMachine.AnswerAction {
        machine.answer(result, index: index)
    }

    /// Does what a recorded answer leads to, holding no lock.
    func continueAfter(_ action: ConditionGateStateMachine.AnswerAction, _ result: ConditionResult, index: Int, procedure: Procedure) {
        switch action {
        case .none: return
        case .resume:
            let condition = conditions[index]
            guard Self.apply(result, of: condition, to: procedure) else { return }
            evaluate(procedure, from: index + 1)
        case .duplicate:
            ProcedureMisuse.report(
                .conditionCompletedTwice,
                "condition \(conditions[index].name) of \(procedure.displayName) called its completion more than once; the first answer was kept. Call the completion exactly once.",
                subject: procedure)
        }
    }

    /// True if the evaluation goes on; otherwise the procedure is cancelled, with the
    /// condition's error if it failed.
    static func apply(_ result: ConditionResult, of condition: Condition, to procedure: Procedure) -> Bool {
        switch result {
        case .satisfied:
            return true
        case .failed(let error):
            // The cancel stops the gate: every later step reads the procedure's cancellation.
            procedure.cancel(withError: Self.conditionError(error, of: condition))
            return false
        case .ignored:
            procedure.cancel()
            return false
        }
    }

    /// `error` named after the condition, unless it already names one (a compound condition
    /// passes on the error of the condition inside it that failed).
    static func conditionError(_ error: any Error, of condition: Condition) -> any Error {
        if case ProcedureError.conditionFailed = error { return error }
        return ProcedureError.conditionFailed(name: condition.name, error: error)
    }

    private func acquireCategories(_ procedure: Procedure) {
        let categories = setup.categories
        guard !categories.isEmpty else {
            open(procedure)
            return
        }
        let submit = procedure.lock.withLock {
            // Same lock as the procedure's: a cancel is decided either before this (and stops
            // here) or after (and its did-cancel hook finds the request and withdraws it).
            machine.claim(cancelled: procedure.state.cancellation != .none)
        }
        guard submit else { return }
        // Not granted at once: a wait that may close a cycle (a category its enclosing group holds, say).
        if !ExclusivityManager.shared.submit(self, for: categories, by: procedure), WaitForGraph.categoryOrSlotWaitMayCycle,
            ExclusivityManager.shared.blockersMayWait(self)
        {
            WaitForGraph.checkWaits(of: procedure)
        }
    }

    private func open(_ procedure: Procedure) {
        procedure.conditionGateDidOpen()
    }

    // MARK: - Categories given back while waiting for a slot

    /// The procedure was given a slot: true if it starts now; false if it first takes back
    /// the categories it gave back while it waited for the slot (it is started once it has).
    func takeCategoriesBack(for procedure: Procedure, owner: any ProcedureOwner) -> Bool {
        guard case .rejoin = ExclusivityManager.shared.claimForStart(self) else { return true }
        let scheduler = owner.scheduler  // the one that gave the slot
        procedure.lock.withLock { machine.awaitCategoriesBack(.init(owner: owner)) }
        // It holds a slot while it waits: a slot holder a wait for a slot can lead back from.
        scheduler.holderBeganWaiting()
        guard ExclusivityManager.shared.rejoin(self) else {
            WaitForGraph.checkCategoryOrSlotWait(of: procedure)
            return false
        }
        // Granted at once, unless a cancel took the start meanwhile (and starts it itself).
        guard takeReturningStart(procedure) != nil else { return false }
        scheduler.holderStoppedWaiting()
        return true
    }

    /// The categories came back to a procedure waiting for them with a slot: it starts on its
    /// scheduler's queue (not on the thread that released them). False if it was not waiting so.
    func resumeReturningStart(of procedure: Procedure) -> Bool {
        guard let start = takeReturningStart(procedure) else { return false }
        startReturning(start, of: procedure)
        return true
    }

    /// Under the procedure's lock: how its procedure starts, if it was waiting with a slot to
    /// take its categories back (it no longer is); nil otherwise.
    func takeReturningStartHoldingLock() -> ConditionGateStateMachine.ReturningStart? {
        machine.takeReturningStart()
    }

    /// Starts a procedure that took its categories back, on its scheduler's queue.
    func startReturning(_ start: ConditionGateStateMachine.ReturningStart, of procedure: Procedure) {
        start.scheduler.holderStoppedWaiting()
        start.scheduler.dispatch { CurrentOwner.with(start.owner) { procedure.send(.start) } }
    }

    /// True while its procedure, holding a slot, waits to take its categories back. Under the
    /// procedure's lock.
    var isTakingCategoriesBack: Bool { machine.isTakingCategoriesBack }

    private func takeReturningStart(_ procedure: Procedure) -> ConditionGateStateMachine.ReturningStart? {
        procedure.lock.withLock { machine.takeReturningStart() }
    }

    // MARK: - Told by the procedure

    // The procedure calls these itself (after its own `procedureDid…` override, before its
    // observers), rather than the gate being one of its observers: that would cost every
    // exclusive procedure an observer list.

    /// The procedure's cancel took effect: stop, cancel what the conditions produced, leave
    /// the lines.
    func procedureDidCancel(_ procedure: Procedure) {
        let action = procedure.lock.withLock { machine.cancelled() }
        for operation in action.produced where !operation.isFinished { operation.cancel() }
        // Leaves the line at once; a procedure already holding its categories keeps them
        // until it finishes.
        if action.leavesLines { ExclusivityManager.shared.leaveLine(self) }
        // One waiting with a slot to take its categories back starts now, so as to finish.
        _ = resumeReturningStart(of: procedure)
    }

    /// The procedure finished, giving back its slot of `scheduler` (nil: it held none): release
    /// its categories. If it finished inside its run on this thread's drain loop of that
    /// scheduler, the procedure that takes its categories there next is handed to that loop;
    /// true if one was (the procedure then makes sure a loop comes before any user code runs).
    func procedureDidFinish(_ procedure: Procedure, releasingSlotOf scheduler: ProcedureScheduler?) -> Bool {
        guard procedure.lock.withLock({ machine.finished() }) else { return false }
        let loop = scheduler.flatMap { DrainLoopThread.current.comingLoop(of: $0, running: procedure) }
        return ExclusivityManager.shared.withdraw(self, loopComing: loop)
    }
}

/// Tells a gate that one of its conditions' dependencies finished.
private struct ConditionDependencyObserver: ProcedureObserver {
    let gate: ConditionGate
    let procedure: Procedure

    func didFinish(_ dependency: Procedure, errors: [any Error]) {
        gate.dependencyDidFinish(for: procedure)
    }
}
