import Dispatch
import Foundation
import ProceduresSupport
import Synchronization

/// Hands ready procedures to Dispatch within a width: the part of a queue that decides *when*
/// a ready procedure runs (a plain operation runs inside a procedure that wraps it, so it
/// shares the width). Both ``ProcedureQueue`` and ``GroupProcedure`` own one; neither goes
/// through Foundation's `OperationQueue` machinery.
///
/// - Width: at most `width` procedures hold a slot at once (-1: no limit). A procedure holds
///   its slot from the moment it is started until it has finished.
/// - Order: among waiting procedures, higher `queuePriority` first, FIFO within a priority.
/// - Suspension: while suspended nothing new starts (running work carries on); condition
///   checks that would start meanwhile are parked here and resumed with the scheduler.
/// - Where: on `underlyingQueue` when one is set, else on the global queue of the mapped QoS.
///
/// Ready procedures are started by *drain loops*: a block on the target queue that starts
/// waiting procedures one after another while slots are free. A loop that takes a procedure
/// while more wait makes sure another loop is on its way (at most one is ever pending), so
/// work spreads over as many threads as Dispatch lends, and a procedure that blocks its
/// thread never keeps the others from starting; a loop hands its thread back after a few
/// dozen procedures. A procedure made ready, on a loop's thread, by the finish of the procedure
/// that loop runs is left to that loop (``submitToRunningLoop(_:)``), and a group that starts
/// its children inside its run on a loop leaves its own first loop to that thread
/// (``setSuspended(_:decision:handingLoopTo:)``). So most procedures cost no Dispatch block of
/// their own. While procedures
/// stream in, a loop that runs out of work lingers briefly for the next (see `linger`), so
/// that the submitting thread need not wake another.
///
/// Every operation is O(1) (amortised); no lock is held while a procedure is started, and
/// nothing here blocks a thread (a linger yields its core and lasts at most 10 µs).
///
/// What it decides is a ``SchedulerStateMachine`` kept under one lock: each call reports an
/// event to it there and performs the action it returns (``perform(_:)``) after unlocking.
final class ProcedureScheduler: @unchecked Sendable {
    // @unchecked: `machine` is only touched under `lock`; the other fields are atomics.
    private let lock = InlineLock()
    /// How many of its slot holders wait themselves while they hold their slots (a running
    /// group, one taking its categories back): only such a holder can lead a wait for a slot
    /// back to its waiter, so the wait-for graph searches a slot wait only while some do.
    private let waitingHolderCount = Atomic<Int>(0)
    @exclusivity(unchecked) private var machine: SchedulerStateMachine
    /// The machine's `isSuspended`, copied under `lock` for `parkWhileSuspended` to read
    /// without it: every procedure with conditions asks, and most queues are never suspended.
    private let suspendedFlag: Atomic<Bool>
    /// Set when work arrives for a lingering loop, which watches it without the lock (then
    /// takes the lock to take the work): spinning on the lock would hold up the submitter.
    private let lingerPoke = Atomic<Bool>(false)

    /// True if some slot holder waits itself (no lock taken).
    var hasWaitingHolders: Bool { waitingHolderCount.load(ordering: .relaxed) > 0 }

    /// A slot holder began to wait (balanced by exactly one ``holderStoppedWaiting()``).
    func holderBeganWaiting() { waitingHolderCount.add(1, ordering: .relaxed) }

    func holderStoppedWaiting() { waitingHolderCount.subtract(1, ordering: .relaxed) }

    init(width: Int = -1, suspended: Bool = false) {
        machine = SchedulerStateMachine(width: width, suspended: suspended)
        suspendedFlag = Atomic(suspended)
    }

    /// Uptime nanoseconds, the machine's time.
    @inline(__always) private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Makes `group` this scheduler's holder: when every procedure holding a slot here has
    /// given it back to wait, the group gives back its own slot too (so a retry waiting inside
    /// a group frees a slot of the queue the group runs on), and asks for it again before
    /// anything starts here.
    ///
    /// `nil` as the group finishes, which ends the reference cycle of a group and its
    /// scheduler.
    func setHolder(_ group: Procedure?) {
        lock.withLock { machine.setHolder(group) }
    }

    // MARK: - Settings

    /// How many procedures may hold a slot at once; -1 means no limit.
    var maxConcurrentOperationCount: Int {
        get { lock.withLock { machine.width } }
        set { perform(lock.withLock { machine.setWidth(newValue, now: Self.now()) }) }
    }

    var isSuspended: Bool { lock.withLock { machine.isSuspended } }

    /// Suspends or resumes. Resuming starts waiting procedures and returns those whose
    /// condition checks were parked: the caller begins them holding no lock (they are user code).
    ///
    /// `decision` orders decisions taken elsewhere under another lock (a group's): one older
    /// than the last applied is ignored, so two threads cannot leave a stale value.
    ///
    /// `thread`: the thread of a loop running the group that resumes this scheduler to start
    /// its children, with no user code to run before that run returns. A loop this resume
    /// starts is handed to it (`handed`), to run once the group's run returns, instead of
    /// costing a Dispatch block; the caller starts it elsewhere before user code runs there
    /// after all (``startLoopHandedToThisThread()``).
    func setSuspended(
        _ newValue: Bool, decision: Int? = nil, handingLoopTo thread: DrainLoopThread? = nil
    ) -> (resumedGates: [Procedure], handed: Bool) {
        let (action, gates) = lock.withLock { () -> (SchedulerStateMachine.Action, [Procedure]) in
            let change = machine.setSuspended(newValue, decision: decision, now: Self.now())
            // Under the lock, so that two changes cannot leave the copy stale.
            suspendedFlag.store(machine.isSuspended, ordering: .releasing)
            return (change.action, change.resumedGates)
        }
        if let thread, case .startLoop(let queue) = action, thread.take(self, on: queue) {
            return (gates, true)
        }
        perform(action)
        return (gates, false)
    }

    /// Parks `procedure`'s condition check if the scheduler is suspended (true), to be
    /// returned by the `setSuspended(false)` that resumes it.
    /// True if the scheduler may be suspended (`parkWhileSuspended` then decides under the
    /// lock), read without the lock or a reference to the scheduler leaving its owner.
    var mayBeSuspended: Bool { suspendedFlag.load(ordering: .acquiring) }

    func parkWhileSuspended(_ procedure: Procedure) -> Bool {
        // Not suspended: nothing to park, and no lock taken. (A suspension racing with this
        // check is unordered with it anyway: it is as if it came just after.)
        guard suspendedFlag.load(ordering: .acquiring) else { return false }
        return lock.withLock { machine.parkWhileSuspended(procedure) }  // false if resumed meanwhile
    }

    var underlyingQueue: DispatchQueue? { lock.withLock { machine.underlyingQueue } }

    var qualityOfService: QualityOfService { lock.withLock { machine.qualityOfService } }

    func setUnderlyingQueue(_ queue: DispatchQueue?) {
        lock.withLock { machine.setUnderlyingQueue(queue) }
    }

    func setQualityOfService(_ qos: QualityOfService) {
        lock.withLock { machine.setQualityOfService(qos) }
    }

    static func globalQueue(for qos: QualityOfService) -> DispatchQueue {
        switch qos {
        case .userInteractive: return GlobalQueues.userInteractive
        case .userInitiated: return GlobalQueues.userInitiated
        case .utility: return GlobalQueues.utility
        case .background: return GlobalQueues.background
        default: return GlobalQueues.default
        }
    }

    /// Dispatch's global queues, looked up once: on corelibs `DispatchQueue.global(qos:)`
    /// makes a new wrapper object at every call, and every group makes a scheduler.
    private enum GlobalQueues {
        static let userInteractive = DispatchQueue.global(qos: .userInteractive)
        static let userInitiated = DispatchQueue.global(qos: .userInitiated)
        static let utility = DispatchQueue.global(qos: .utility)
        static let background = DispatchQueue.global(qos: .background)
        static let `default` = DispatchQueue.global()
    }

    /// How many times one of its drain loops lingered for more work (for tests).
    var lingerCount: Int { lock.withLock { machine.lingerCount } }

    /// How many of its loops began on the thread of the loop that ran its group (for tests).
    var handedLoopCount: Int { lock.withLock { machine.handedLoopCount } }

    /// How many times work arrived while the holder was giving its slot back (for tests).
    var deferredReacquireCount: Int { lock.withLock { machine.deferredReacquireCount } }

    /// How many procedures hold a slot, and how many wait for one.
    var counts: (running: Int, waiting: Int) { lock.withLock { (machine.running, machine.line.count) } }

    /// Why a ready procedure in the line has not started: the scheduler is suspended, or
    /// every slot of its width is taken (that width), or neither (it starts presently).
    var readyHoldUp: (suspended: Bool, fullWidth: Int?) { lock.withLock { machine.readyHoldUp } }

    // MARK: - Running

    /// `procedure` is ready: it starts when a slot is free (soon, if one is). True if it
    /// must wait for one (every slot taken, or the scheduler suspended or without its holder's slot).
    @discardableResult
    func submit(_ procedure: Procedure) -> Bool {
        let priority = procedure.queuePriority  // Foundation's getter: read before locking
        let (action, waits) = lock.withLock { () -> (SchedulerStateMachine.Action, Bool) in
            (machine.submit(procedure, priority: priority, now: Self.now()), machine.waitsForSlot)
        }
        perform(action)
        return waits
    }

    /// `procedure` is ready, made so by the finish of the procedure that this thread's drain
    /// loop of this scheduler runs, with no user code to run before the loop takes its next
    /// step: if it could start now, that loop takes it (`handed`), and no other loop is
    /// started. Otherwise as ``submit(_:)``. The caller makes sure a loop is started
    /// (``startLoopForHandedWork()``) if user code is to run before the loop's next step after all.
    func submitToRunningLoop(_ procedure: Procedure) -> (waits: Bool, handed: Bool) {
        let priority = procedure.queuePriority  // Foundation's getter: read before locking
        let (handed, action, waits) = lock.withLock { () -> (Bool, SchedulerStateMachine.Action, Bool) in
            let (handed, action) = machine.submitToRunningLoop(procedure, priority: priority, now: Self.now())
            return (handed, action, machine.waitsForSlot)
        }
        perform(action)
        return (waits, handed)
    }

    /// Starts a loop for procedures handed to this thread's loop (``submitToRunningLoop(_:)``)
    /// if one is needed, and this scheduler's loop if it was handed to this thread, before
    /// user code that could hold the thread runs.
    func startLoopForHandedWork() {
        startLoopHandedToThisThread()
        perform(lock.withLock { machine.handedWorkNeedsLoop(now: Self.now()) })
    }

    /// Starts this scheduler's loop on its queue if it was handed to this thread
    /// (``setSuspended(_:decision:handingLoopTo:)``), before user code that could hold the
    /// thread runs.
    func startLoopHandedToThisThread() {
        if let handed = DrainLoopThread.current.takeHandedLoop(of: self) {
            handed.queue.async { [self] in drain(on: handed.queue) }
        }
    }

    /// Runs `work` on the queue this scheduler starts procedures on (for a procedure that
    /// already holds a slot and waited for something else).
    func dispatch(_ work: @escaping @Sendable () -> Void) {
        lock.withLock { machine.targetQueue }.async(execute: work)
    }

    /// A running procedure gave its slot back to wait (``Procedure/releaseSlot()``): the slot
    /// goes to the next in line. If none is left in use or wanted here, the holder gives its
    /// own slot back too, once this scheduler's lock is let go (its lock and its owner's
    /// scheduler's are taken for it), and asks for it again right after if work came meanwhile.
    func slotReleased() {
        perform(lock.withLock { machine.slotReleased(now: Self.now()) })
    }

    /// A procedure that held a slot has finished: its slot goes to the next in line.
    func didFinish() {
        perform(lock.withLock { machine.didFinish(now: Self.now()) })
    }

    /// Does what the machine decided, holding no lock. Giving the holder's slot back and
    /// asking for it again take the holder's lock and its owner's scheduler's; the machine
    /// hears when each is done, and only then decides the next (so a request for the slot
    /// always follows its release).
    @inline(__always) private func perform(_ action: consuming SchedulerStateMachine.Action) {
        switch consume action {
        case .none:
            break
        case .startLoop(let queue):
            queue.async { [self] in drain(on: queue) }
        case .pokeLingeringLoop:
            lingerPoke.store(true, ordering: .relaxed)
        case .releaseHolderSlot(let holder):
            releaseSlot(of: holder)
        case .reacquireHolderSlot(let holder):
            reacquireSlot(of: holder)
        }
    }

    /// Gives the holder's slot back, then tells the machine (off the hot path: not inlined).
    @inline(never) private func releaseSlot(of holder: Procedure) {
        holder.releaseSlot()
        perform(lock.withLock { machine.releaseDone(now: Self.now()) })
    }

    /// Asks for the holder's slot again; the grant may come at once, on this thread.
    @inline(never) private func reacquireSlot(of holder: Procedure) {
        holder.reacquireSlot { [self] in perform(lock.withLock { machine.reacquired(now: Self.now()) }) }
    }

    /// Starts waiting procedures while slots are free, on the thread Dispatch lent it.
    private func drain(on queue: DispatchQueue) {
        let thread = DrainLoopThread.current
        thread.loop(of: self, on: queue) { drainOnThisThread(thread) }
    }

    /// Runs the loop a group handed to this thread (see ``setSuspended(_:decision:handingLoopTo:)``),
    /// now that the group's run has returned to the loop that ran it.
    @inline(never) private static func runHandedLoop(_ handed: DrainLoopThread.HandedLoop, on thread: DrainLoopThread) {
        // It does not linger: the loop it runs inside has work of its own to take.
        thread.loop(of: handed.scheduler, on: handed.queue, handed: true) {
            handed.scheduler.drainOnThisThread(thread, handed: true)
        }
    }

    private func drainOnThisThread(_ thread: DrainLoopThread, handed: Bool = false) {
        var next = lock.withLock { machine.loopStarted(handed: handed, now: Self.now()) }
        var started = 0
        while true {
            // Consumed, so that the procedure and the helper are moved out, not copied.
            switch consume next {
            case .run(let procedure, let helper):
                perform(helper)
                thread.run(procedure) { procedure.run(scheduledBy: self) }
                if let handed = thread.takeHandedLoop() { Self.runHandedLoop(handed, on: thread) }
                started += 1
                next = lock.withLock { machine.nextStep(startedSoFar: started, now: Self.now()) }
            case .linger:
                next = handed ? lock.withLock { machine.lingerEnded(startedSoFar: started, now: Self.now()) } : linger(startedSoFar: started)
            case .leave:
                return
            case .handBack(let action):
                perform(action)
                return
            }
        }
    }

    /// Keeps the thread for up to `lingerNanoseconds`, watching for work without taking the
    /// lock (a relaxed load: the lock, taken when it is seen, orders the rest), then takes
    /// the next step. The wait is bounded and short (no thread is ever blocked): it only
    /// replaces a sleep and a wake-up that would cost more.
    private func linger(startedSoFar started: Int) -> SchedulerStateMachine.Step {
        let deadline = Self.now() &+ SchedulerStateMachine.lingerNanoseconds
        while !lingerPoke.load(ordering: .relaxed) {
            // Lets any other runnable thread have this core meanwhile (the one that will
            // submit the work, a procedure of another queue): lingering must not take time
            // from the work it waits for.
            sched_yield()
            if Self.now() >= deadline { break }
        }
        // Cleared before the machine hears the linger ended: every poke for this linger was
        // decided before that, so one stored after this can only end a later linger early.
        lingerPoke.store(false, ordering: .relaxed)
        return lock.withLock { machine.lingerEnded(startedSoFar: started, now: Self.now()) }
    }
}
