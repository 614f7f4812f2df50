import Foundation

/// Where a ``ConditionGate`` is in its steps, as a value: each step carries what is valid in
/// it, and every event is a `mutating` method that returns what the gate does next, once it
/// has let go of the procedure's lock (which guards the machine).
///
/// Two facts live elsewhere, read in the same critical section and passed in: whether the
/// procedure was cancelled (`cancelled`, its lifecycle's cancellation: a cancelled gate takes
/// no further step) and whether its gate is still being checked (the lifecycle's gate stage:
/// once open, the gate waits for nothing whatever step it reached).
struct ConditionGateStateMachine {
    /// How a procedure that was given a slot while it waits to take its categories back is
    /// started once it has them.
    struct ReturningStart {
        let owner: any ProcedureOwner
        /// The scheduler that gave it the slot (its owner's; not stored, so that the gate stays
        /// small).
        var scheduler: ProcedureScheduler { owner.scheduler }
    }

    /// Where the current condition's answer is.
    enum Answer {
        /// `evaluate` has not returned yet.
        case pending
        case inline(ConditionResult)
        /// `evaluate` returned without an answer: the answer resumes the gate.
        case awaited
        case received
    }

    enum State {
        /// Not begun; or finished after claiming its categories, which it gave back.
        case idle
        /// Waits for its suspended queue to resume before it begins.
        case parked
        /// Waits for its conditions' dependencies (`unfinished`, plus one while it adds its
        /// observers to them); `produced` are those it added to its queue, cancelled with it.
        case gathering(dependencies: [Procedure], unfinished: Int, produced: [Procedure])
        /// Evaluates the condition at `index` (of the gate's conditions), or evaluated the last.
        case evaluating(index: Int, answer: Answer)
        /// Asked for its categories (the gate's, fixed when it began): waits for them, holds
        /// them, or, given a slot after giving them back, waits to take them back (`returning`:
        /// how it then starts). Until it finishes.
        case claiming(returning: ReturningStart?)
    }

    private(set) var state = State.idle

    // MARK: - Queries

    /// What the gate waits for while its procedure's gate is being checked; `categories`: the
    /// ones it claims, read only in `claiming`.
    func waiting(claiming categories: @autoclosure () -> [String]) -> ConditionGate.Waiting {
        switch state {
        case .idle: return .nothing
        case .parked: return .queueResume
        case .gathering(let dependencies, _, _): return .dependencies(dependencies)
        case .evaluating(let index, _): return .condition(index: index)
        case .claiming: return .exclusivity(categories())
        }
    }

    /// True from when the gate asks for its categories until its procedure finishes.
    var hasClaimed: Bool {
        if case .claiming = state { return true }
        return false
    }

    /// True while its procedure, holding a slot, waits to take its categories back.
    var isTakingCategoriesBack: Bool {
        if case .claiming(.some) = state { return true }
        return false
    }

    // MARK: - Events

    /// Its queue is suspended: it begins once the queue resumes.
    mutating func park() {
        state = .parked
    }

    /// It begins waiting for its conditions' `dependencies`, `produced` among them; false
    /// (nothing changes) if the procedure was cancelled.
    mutating func beginGathering(_ dependencies: [Procedure], produced: [Procedure], cancelled: Bool) -> Bool {
        guard !cancelled else { return false }
        state = .gathering(dependencies: dependencies, unfinished: dependencies.count + 1, produced: produced)
        return true
    }

    /// One of the dependencies finished (or the count held while adding observers was given
    /// back); true once none is left, when the conditions are evaluated.
    mutating func dependencyFinished() -> Bool {
        guard case .gathering(let dependencies, let unfinished, let produced) = state else {
            preconditionFailure("a condition dependency finished for a gate that does not wait for any: \(state)")
        }
        state = .gathering(dependencies: dependencies, unfinished: unfinished - 1, produced: produced)
        return unfinished == 1
    }

    /// The condition at `index` is about to be evaluated; false (nothing changes) if the
    /// procedure was cancelled, when the gate stops.
    mutating func beginEvaluating(_ index: Int, cancelled: Bool) -> Bool {
        guard !cancelled else { return false }
        state = .evaluating(index: index, answer: .pending)
        return true
    }

    /// The condition's `evaluate` returned: its answer if it came meanwhile (the loop goes
    /// on with it), nil if it has not (the answer will resume the gate).
    mutating func evaluateReturned() -> ConditionResult? {
        guard case .evaluating(let index, let answer) = state else {
            preconditionFailure("a condition's evaluate returned while the gate evaluates none: \(state)")
        }
        guard case .inline(let result) = answer else {
            state = .evaluating(index: index, answer: .awaited)
            return nil
        }
        state = .evaluating(index: index, answer: .received)
        return result
    }

    /// The condition being evaluated answered at once (``Condition/answersAtOnce``), with no
    /// completion handed out: the gate goes on from that answer.
    mutating func answeredAtOnce() {
        guard case .evaluating(let index, .pending) = state else {
            preconditionFailure("a condition answered at once while the gate waits for no answer: \(state)")
        }
        state = .evaluating(index: index, answer: .received)
    }

    /// What a condition's answer leads to.
    enum AnswerAction: Equatable {
        /// Nothing now: `evaluate` has not returned, and its loop takes the answer.
        case none
        /// The gate goes on from this answer.
        case resume
        /// Not the current condition's first answer: reported as misuse, ignored.
        case duplicate
    }

    /// The completion of the condition at `index` was called with an answer.
    mutating func answer(_ result: ConditionResult, index: Int) -> AnswerAction {
        guard case .evaluating(index, let answer) = state else { return .duplicate }
        switch answer {
        case .pending:
            state = .evaluating(index: index, answer: .inline(result))
            return .none
        case .awaited:
            state = .evaluating(index: index, answer: .received)
            return .resume
        case .inline, .received:
            return .duplicate
        }
    }

    /// Every condition is satisfied: it asks for its categories; false (nothing changes) if the
    /// procedure was cancelled.
    mutating func claim(cancelled: Bool) -> Bool {
        guard !cancelled else { return false }
        state = .claiming(returning: nil)
        return true
    }

    /// Given a slot after giving its categories back, it waits to take them back, then
    /// starts as `start` says.
    mutating func awaitCategoriesBack(_ start: ReturningStart) {
        guard case .claiming(nil) = state else {
            preconditionFailure("a gate waits to take back categories it did not claim, or twice: \(state)")
        }
        state = .claiming(returning: start)
    }

    /// Its categories came back (or a cancel starts it without them): how to start it, nil
    /// if it was not waiting for them (another path started it).
    mutating func takeReturningStart() -> ReturningStart? {
        // Matched without binding first: the usual answer, nil, then copies nothing.
        guard case .claiming(.some) = state, case .claiming(let returning?) = state else { return nil }
        state = .claiming(returning: nil)
        return returning
    }

    /// What the gate does when its procedure's cancel takes effect.
    struct CancelAction {
        /// The procedures its conditions produced, to cancel.
        var produced: [Procedure] = []
        /// It asked for categories: it leaves the lines it waits in (it keeps those it holds
        /// until it finishes).
        var leavesLines = false
    }

    /// The procedure's cancel took effect: the gate takes no further step.
    mutating func cancelled() -> CancelAction {
        switch state {
        case .gathering(let dependencies, let unfinished, let produced):
            // The dependencies still count down; the gate stops when they are done.
            state = .gathering(dependencies: dependencies, unfinished: unfinished, produced: [])
            return CancelAction(produced: produced)
        case .claiming:
            return CancelAction(leavesLines: true)
        case .idle, .parked, .evaluating:
            return CancelAction()
        }
    }

    /// The procedure finished: true if it claimed categories, which it now gives back.
    mutating func finished() -> Bool {
        switch state {
        case .claiming:
            state = .idle
            return true
        case .gathering(let dependencies, let unfinished, _):
            state = .gathering(dependencies: dependencies, unfinished: unfinished, produced: [])
            return false
        case .idle, .parked, .evaluating:
            // An evaluation stays: its condition may still answer once, which is no misuse.
            return false
        }
    }
}
