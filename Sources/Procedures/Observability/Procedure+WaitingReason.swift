import Foundation

/// A procedure that, while executing, may be waiting on a clock (computed only when asked).
protocol ClockWaiting {
    /// The clock and deadline it waits for, if it waits on one now.
    var clockWait: (clock: any ProcedureClock, deadline: TimeInterval)? { get }
}

extension Procedure {
    /// Why this procedure is not executing yet, or nil when there is nothing to explain: not
    /// enqueued (nor started), executing, or finished.
    ///
    /// Computed on demand from what the queue already tracks, so asking costs nothing until
    /// you ask. The answer is a snapshot: by the time you read it, the procedure may have
    /// moved on.
    ///
    /// ```swift
    /// if let reason = upload.waitingReason { print("\(upload.name ?? "upload"): \(reason)") }
    /// // upload: waiting for exclusive category "network", held by sync
    /// ```
    ///
    /// While executing it answers only what the library itself makes it wait for: a
    /// ``DelayProcedure`` (or a ``RepeatProcedure`` or ``RetryProcedure`` in a back-off) its
    /// ``WaitingReason/clock(_:deadline:)``, a ``GroupProcedure`` its unfinished
    /// ``WaitingReason/children(_:)``, and one that gave its slot back
    /// ``WaitingReason/slotAgain(width:)`` while it waits for one again.
    public final var waitingReason: WaitingReason? {
        enum Stage {
            case none
            case dependencies
            case gate(ConditionGate)
            /// Its one condition, which answers at once, is being checked (no gate).
            case checkedAtOnce(Condition)
            case ready(any ProcedureOwner)
            case executing
            /// Started with a slot, taking back the categories it gave back while it waited for one.
            case takingCategoriesBack(ConditionGate)
            /// Running, it gave its slot back and waits for one again.
            case slotAgain(any ProcedureOwner)
        }
        let stage = lock.withLock { () -> Stage in
            switch state.lifecycle.stage {
            case .waiting(let waiting):
                // A cancelled procedure stops waiting at once.
                if state.cancellation != .none { return .none }
                if waiting.unfinished > 0 { return .dependencies }
                if waiting.gate == .checking {
                    switch state.conditions {
                    case .none: break
                    case .one(let condition): return .checkedAtOnce(condition)
                    case .gate(let gate): return .gate(gate)
                    }
                }
                return .none
            case .ready:
                return state.lifecycle.owner.map(Stage.ready) ?? .none
            case .running(let running):
                if state.lifecycle.isWaitingForSlotAgain, let owner = state.owner { return .slotAgain(owner) }
                if running.executing { return .executing }
                if let gate = state.gate, gate.isTakingCategoriesBack { return .takingCategoriesBack(gate) }
                return .none
            default:
                return .none
            }
        }
        switch stage {
        case .none:
            return nil
        case .dependencies:
            let unfinished = dependencies.filter { !$0.isFinished }
            // Empty only for the instant a claim registers with its dependencies.
            return unfinished.isEmpty ? nil : .dependencies(unfinished)
        case .gate(let gate):
            return reason(for: gate)
        case .checkedAtOnce(let condition):
            return .condition(name: condition.name)
        case .ready(let owner):
            let (suspended, fullWidth) = owner.scheduler.readyHoldUp
            if suspended { return .suspended(owner: Self.ownerName(owner)) }
            if let fullWidth { return .queueFull(width: fullWidth) }
            return .starting
        case .takingCategoriesBack(let gate):
            guard let blocker = ExclusivityManager.shared.blocker(of: gate) else { return nil }
            return .exclusivity(category: blocker.category, holder: blocker.holder)
        case .slotAgain(let owner):
            let (suspended, fullWidth) = owner.scheduler.readyHoldUp
            if suspended { return .suspended(owner: Self.ownerName(owner)) }
            return .slotAgain(width: fullWidth)
        case .executing:
            if let wait = (self as? ClockWaiting)?.clockWait { return .clock(wait.clock, deadline: wait.deadline) }
            let children = waitedForWhileRunning
            return children.isEmpty ? nil : .children(children)
        }
    }

    private func reason(for gate: ConditionGate) -> WaitingReason? {
        let (waiting, request) = gate.currentWait(of: self)
        switch waiting {
        case .nothing:
            return nil
        case .queueResume:
            guard let owner = lock.withLock({ state.owner }) else { return nil }
            return .suspended(owner: Self.ownerName(owner))
        case .dependencies(let operations):
            let unfinished = operations.filter { !$0.isFinished }
            return unfinished.isEmpty ? nil : .conditionDependencies(unfinished)
        case .condition(let index):
            return .condition(name: gate.conditions[index].name)
        case .exclusivity(let categories):
            guard let request, let blocker = ExclusivityManager.shared.blocker(of: request) else {
                // Granted a moment ago, or not yet in the lines.
                return categories.first.map { .exclusivity(category: $0, holder: nil) }
            }
            return .exclusivity(category: blocker.category, holder: blocker.holder)
        }
    }

    /// "queue uploads" or "group Sync".
    static func ownerName(_ owner: any ProcedureOwner) -> String {
        switch owner.ownerRole {
        case .group(let group): return "group \(group.displayName)"
        case .queue(let queue): return "queue \(queue.name ?? "(unnamed)")"
        }
    }
}
