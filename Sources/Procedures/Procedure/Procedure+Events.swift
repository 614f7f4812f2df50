import Foundation
import ProceduresSupport

// How a procedure handles its events. See `EventMailbox` for the one-at-a-time rule.
extension Procedure {
    /// Handles `event` now on this thread if no other event is being handled, else queues it.
    func send(_ event: ProcedureEvent) {
        send { _ in event }
    }

    /// Runs `decide` under the lock and queues the event it returns, if any, in the same
    /// critical section: events are queued in the order their decisions were taken, so a
    /// cancel decided before a finish is always handled before it.
    func send(_ decide: (inout ProcedureState) -> ProcedureEvent?) {
        let ready = lock.withLock { () -> ProcedureEvent? in
            guard let event = decide(&state) else { return nil }
            return state.mailbox.claimOrPost(event) ? event : nil
        }
        guard let ready else { return }
        handle(ready)
        drainEvents()
    }

    /// Queues `event` behind the one being handled (the caller is the handler).
    func post(_ event: ProcedureEvent) {
        let mustDrain = lock.withLock { state.mailbox.post(event) }
        if mustDrain { drainEvents() }
    }

    func drainEvents() {
        while let (event, loopStartOwed) = lock.withLock({ state.mailbox.next() }) {
            // A child handed to this thread's loop starts elsewhere before user code runs here.
            if loopStartOwed { asGroup?.scheduler.startLoopForHandedWork() }
            handle(event)
        }
    }

    private func handle(_ event: ProcedureEvent) {
        switch event {
        case .cancel(let errors): handleCancel(errors: errors)
        case .start: handleStart()
        case .execute: handleExecute()
        case .finish: handleFinish()
        case .produce(let operation): handleProduce(operation)
        case .operationFinished(let operation, let errors):
            _ = respond(to: .operationFinished(operation, errors: errors))  // no default
        case .perform(let work): work()
        }
    }

    private func handleCancel(errors: [any Error]) {
        assertNoLibraryLockHeld("procedureWillCancel(withErrors:) and the will-cancel observers")
        procedureWillCancel(withErrors: errors)
        for observer in observers { observer.willCancel(self, errors: errors) }
        let (readyAction, gate) = lock.withLock { (state.lifecycle.cancelHandled(), state.gate) }
        // Foundation's own flag, so a plain OperationQueue holding this procedure (or waiting
        // on plain-Operation dependencies for it) treats it as ready.
        super.cancel()
        if ProcedureInstrumentation.isActive { ProcedureInstrumentation.record(.cancelled(errors: errors), self) }
        _ = respond(to: .cancelTookEffect(errors: errors))  // no default
        perform(readyAction)
        assertNoLibraryLockHeld("procedureDidCancel(withErrors:) and the did-cancel observers")
        procedureDidCancel(withErrors: errors)
        // A cancelled procedure leaves its categories' lines before its did-cancel observers
        // run, as it releases them before its did-finish observers.
        gate?.procedureDidCancel(self)
        for observer in observers { observer.didCancel(self, errors: errors) }
    }

    private func handleStart() {
        if ProcedureInstrumentation.isActive { ProcedureInstrumentation.record(.started, self) }
        let (next, observers, timeout) = lock.withLock { (state.lifecycle.startDecision, state.observers, state.timeout) }
        switch next {
        case .finish: post(.finish)
        case .cancelled: startCancelled()
        case .alreadyFinishing: return
        case .run:
            if let timeout { armTimeout(timeout) }
            assertNoLibraryLockHeld("the will-execute observers")
            for observer in observers { observer.willExecute(self) }
            // A cancel or finish requested meanwhile (by a will-execute observer, or another
            // thread) waits in the mailbox and must be handled first, `execute()` then being
            // skipped: queue the execute behind it. With nothing waiting, execute right away.
            if lock.withLock({ state.mailbox.hasWaitingEvents }) {
                post(.execute)
            } else {
                handleExecute()
            }
        }
    }

    private func handleExecute() {
        switch lock.withLock({ state.lifecycle.beginExecuting() }) {
        case .skip: return
        case .cancelled: startCancelled()
        case .execute(let owner):
            let recording = ProcedureInstrumentation.isActive
            if recording { ProcedureInstrumentation.record(.executing, self) }
            // `ProcedureQueue.current` answers the owner inside `execute()`, on whichever
            // thread runs it.
            assertNoLibraryLockHeld("execute()")
            CurrentOwner.with(owner) { execute() }
            let observers = self.observers
            // A group's first loop left to this thread (see `startChildren`) starts elsewhere
            // before user code can hold the thread (an observer may have come meanwhile).
            if recording || !observers.isEmpty { asGroup?.scheduler.startLoopHandedToThisThread() }
            if recording { ProcedureInstrumentation.record(.executed, self) }
            for observer in observers { observer.didExecute(self) }
        }
    }

    /// A procedure cancelled before `execute()` was started: it finishes, unless a built-in
    /// subclass has work in flight to let finish first.
    private func startCancelled() {
        switch respond(to: .startedWhileCancelled) {
        case .handled: break
        case .proceed: finishAutomatically()
        }
    }

    private func handleFinish() {
        // A finish racing the start of an already-finished-before-start procedure can queue
        // this event twice; the first one wins.
        guard let (errors, owner, observers, timer) = lock.withLock({ () -> ([any Error], (any ProcedureOwner)?, [any ProcedureObserver], (any Cancelable)?)? in
            switch state.lifecycle.beginFinishing() {
            case .alreadyFinishing:
                return nil
            case .begin(let errors, let owner):
                let timer = state.timeout.flatMap { exchange(&$0.timer, with: nil) }
                return (errors, owner, state.observers, timer)
            }
        }) else { return }
        // A procedure that is finishing can no longer time out.
        timer?.cancel()
        assertNoLibraryLockHeld("procedureWillFinish(withErrors:), the will-finish observers and the owner's will-finish")
        procedureWillFinish(withErrors: errors)
        for observer in observers { observer.willFinish(self, errors: errors) }
        owner?.procedureWillFinish(self, errors: errors)

        willChangeValue(forKey: "isFinished")  // KVO on Apple platforms; nothing on corelibs
        // Taken out (no reference counting), as the procedure keeps none of them. Letting go of
        // the dependencies frees a long finished chain link by link instead of by one deep
        // recursion of deinits.
        let (listeners, finalObservers, gate, (slot, cancelled), formerDependencies) = lock.withLock {
            let finished = state.lifecycle.finish()
            return (exchange(&state.readinessListeners, with: []), exchange(&state.observers, with: []), state.gate,
                    finished, exchange(&state.dependencies, with: []))
        }
        // The slot goes to the next ready procedure now: what follows is bookkeeping and hooks.
        slot?.didFinish()
        // Released here, outside the lock: the last reference may run a user's deinit.
        _ = consume formerDependencies
        if ProcedureInstrumentation.isActive {
            ProcedureInstrumentation.record(.finished(errors: errors, cancelled: cancelled), self)
        }
        // How corelibs learns that an asynchronous operation finished: a plain OperationQueue
        // running this procedure, plain operations depending on it and `waitUntilFinished()`
        // all wait for it. Sent after storing the state and outside our lock.
        assertNoLibraryLockHeld("didChangeValue(forKey: \"isFinished\")")
        didChangeValue(forKey: "isFinished")
        // Waiters are released only now, once Foundation knows too: a plain operation that
        // depends on this procedure (through Foundation) is ready only from here.
        let waiters = lock.withLock { () -> [Procedure] in
            state.waitersReleased = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.dependencyDidFinish() }
        for dependent in listeners where !dependent.isEnqueued {
            // Not claimed by a ProcedureQueue: in a plain OperationQueue, which only re-reads
            // `isReady` when told.
            assertNoLibraryLockHeld("didChangeValue(forKey: \"isReady\")")
            dependent.willChangeValue(forKey: "isReady")
            dependent.didChangeValue(forKey: "isReady")
        }
        // Only a cancelled procedure can finish before its plain dependencies.
        if cancelled { releaseUnfinishedPlainDependencies() }

        assertNoLibraryLockHeld("procedureDidFinish(withErrors:), the did-finish observers and the owner's did-finish")
        procedureDidFinish(withErrors: errors)
        // Its exclusivity categories go to the next in line before its did-finish observers run
        // (as in ProcedureKit): whoever learns of the finish from one finds them free.
        // One that takes them next on this thread's drain loop may be handed to it (see
        // `ProcedureScheduler.submitToRunningLoop`): a loop is started first if user code follows,
        // its did-finish observers or a group's handling of its finish (a queue starts one itself
        // before it calls its delegate).
        if let gate, gate.procedureDidFinish(self, releasingSlotOf: slot),
            !finalObservers.isEmpty || owner?.ownerRole.group != nil
        {
            slot?.startLoopForHandedWork()
        }
        for observer in finalObservers { observer.didFinish(self, errors: errors) }
        // Last, so a group counts this child done only after its did-finish observers ran:
        // they may still add children to the group, or cancel it.
        owner?.procedureDidFinish(self, errors: errors)
    }

    func handleProduce(_ operation: Operation) {
        if ProcedureInstrumentation.isActive { ProcedureInstrumentation.record(.willProduce(operation), self) }
        assertNoLibraryLockHeld("the will-add and did-add observers")
        for observer in observers { observer.procedure(self, willAdd: operation) }
        let owner = lock.withLock { state.owner }
        owner?.addProduced(operation)
        for observer in observers { observer.procedure(self, didAdd: operation) }
    }
}
