import Foundation

// Where a procedure performs what its lifecycle's transitions decided (``ProcedureLifecycle``),
// holding no lock: its ready actions, the slots its scheduler grants, and giving a slot back and
// asking for it again. The decisions that steer its event handling (start, execute, finish) are
// acted on where those events are handled (Procedure+Events.swift).
extension Procedure {
    /// Where a ready action is performed from, which decides where a procedure started by
    /// hand starts.
    enum ReadinessSource {
        /// Its claim or its own cancel: it starts on this thread.
        case ownEvent
        /// A dependency's finish or a condition's completion: it starts on another thread
        /// (starting here would nest one stack frame per link of a chain).
        case completion
    }

    /// Acts, holding no lock, on what a lifecycle event decided about its readiness: the one
    /// place a procedure performs its ready actions. A procedure `holding` categories (its
    /// gate just opened) is handed to its scheduler in the step that decides whether it gives
    /// them back while it waits for a slot (see ``ExclusivityManager``). `loopComing`: a
    /// scheduler whose drain loop on this thread takes its next step once this returns, with no
    /// user code run before (``ProcedureScheduler/submitToRunningLoop(_:)``); true if the
    /// procedure was handed to it.
    @discardableResult @inline(__always)
    func perform(
        _ action: ReadyAction, holding request: ExclusivityRequest? = nil, from source: ReadinessSource = .ownEvent,
        loopComing: ProcedureScheduler? = nil
    ) -> Bool {
        switch action {
        case .keepWaiting, .notWaiting:
            return false
        case .schedule(let scheduler):
            if ProcedureInstrumentation.isActive { ProcedureInstrumentation.record(.ready, self) }
            let (waits, handed) = scheduler === loopComing ? scheduler.submitToRunningLoop(self) : (scheduler.submit(self), false)
            // One made ready by a cancel may hold categories granted before it: looked up
            // only if it waits.
            if let request = request ?? (waits ? lock.withLock({ state.gate?.request }) : nil) {
                ExclusivityManager.shared.slotDecided(for: request, waits: waits)
            }
            if waits { checkSlotWait(on: scheduler) }
            return handed
        case .start:
            if ProcedureInstrumentation.isActive { ProcedureInstrumentation.record(.ready, self) }
            switch source {
            case .ownEvent: startAfterWaiting()
            case .completion: DispatchQueue.global().async { self.startAfterWaiting() }
            }
            return false
        case .checkConditions:
            // Not recorded as ready: its conditions still hold it back (it is once its gate opens).
            beginCheckingConditions()
            return false
        }
    }

    /// Runs the procedure on a slot of `scheduler`, which its owner gave it once it was ready
    /// (or gives a slot back to one that asked for it again). The slot is given back when the
    /// procedure has finished.
    func run(scheduledBy scheduler: ProcedureScheduler) {
        let (grant, gate) = lock.withLock { () -> (ProcedureLifecycle.SlotGrant, ConditionGate?) in
            let grant = state.lifecycle.slotGranted()
            guard let gate = state.gate, gate.hasClaimedCategories else { return (grant, nil) }
            return (grant, gate)
        }
        switch consume grant {
        case .start(let owner):
            if let gate, !gate.takeCategoriesBack(for: self, owner: owner) { return }
            CurrentOwner.with(owner) { send(.start) }
        case .resume(let onGranted): onGranted()
        case .unwanted: scheduler.didFinish()
        }
    }

    /// Moves a procedure that became ready through its `ready` phase into `started`, for the
    /// "started by hand, waited for dependencies" path.
    func startAfterWaiting() {
        lock.withLock { state.lifecycle.startUnscheduled() }
        send(.start)
    }

    // MARK: - Giving a slot back while waiting

    // A running procedure that waits for time to pass (a retry's back-off) runs nothing of its
    // own meanwhile: it gives its slot of its owner's width back, so that other work runs, and
    // asks for one again when the wait is over, in line (priority, then FIFO) with the ready
    // procedures. Nothing blocks: the slot is handed over by the scheduler's drain loop.

    /// Gives back the slot this running procedure holds on its owner's scheduler, for the
    /// next procedure in line. Nothing if it holds none (started by hand, say). It finishes
    /// without giving it back again.
    func releaseSlot() {
        switch lock.withLock({ state.lifecycle.releaseSlot() }) {
        case .giveBack(let scheduler): scheduler.slotReleased()
        case .holdsNone: break
        }
    }

    /// Asks for the slot given back by ``releaseSlot()``: `onGranted` runs once the owner's
    /// scheduler gives one (on its thread), or right away if there is nothing to wait for.
    func reacquireSlot(then onGranted: @escaping @Sendable () -> Void) {
        switch lock.withLock({ state.lifecycle.requestSlot(onGranted: onGranted) }) {
        case .wait(let scheduler): scheduler.submit(self)
        case .alreadyWaiting: break
        case .runNow: onGranted()
        }
    }
}
