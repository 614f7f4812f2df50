import Dispatch
import ProceduresSupport

/// What the drain loop on the current thread is running: which scheduler's loop it is, on
/// which queue, and which procedure it runs now (identities only, never retained); and the
/// loop a group handed it, to run once the group's run returns.
///
/// It lets a procedure that finishes inside its own run hand what its finish makes ready
/// (the next holder of its categories, a repeat's next operation) to the loop that will take
/// its next step as soon as the run returns, instead of starting another loop for it; and a
/// group that starts its children inside its run hand its scheduler's first loop to the same
/// thread (see ``ProcedureScheduler``).
final class DrainLoopThread {
    /// The loop's scheduler, its queue and the procedure it runs now.
    private struct Marks {
        var scheduler: ObjectIdentifier?
        var queue: ObjectIdentifier?
        var running: ObjectIdentifier?
        /// The loop was handed to this thread by a group: it takes no loop of its own, so
        /// nested groups add at most one loop's frames to the stack.
        var wasHanded = false
    }

    /// A group's scheduler whose first loop this thread runs after the group's run returns.
    struct HandedLoop {
        let scheduler: ProcedureScheduler
        let queue: DispatchQueue
    }

    private struct State {
        var marks = Marks()
        var handed: HandedLoop?
    }

    // Unchecked: one per thread, touched only by its thread.
    @exclusivity(unchecked) private var state = State()

    private static let perThread = PerThread { DrainLoopThread() }

    /// This thread's.
    static var current: DrainLoopThread { perThread.current }

    /// Runs `body` as `scheduler`'s drain loop on `queue` on this thread, restoring what was there.
    @inline(__always)
    func loop<T>(of scheduler: ProcedureScheduler, on queue: DispatchQueue, handed: Bool = false, _ body: () -> T) -> T {
        let outer = state.marks
        state.marks = Marks(scheduler: ObjectIdentifier(scheduler), queue: ObjectIdentifier(queue), wasHanded: handed)
        defer { state.marks = outer }
        return body()
    }

    /// Runs `procedure` as the loop's current one.
    @inline(__always)
    func run(_ procedure: Procedure, _ body: () -> Void) {
        state.marks.running = ObjectIdentifier(procedure)
        body()
        state.marks.running = nil
    }

    /// `scheduler`, if this thread's loop is its and runs `procedure` now: the loop that takes
    /// its next step as soon as `procedure`, finishing inside that run, returns. Else nil.
    func comingLoop(of scheduler: ProcedureScheduler, running procedure: Procedure) -> ProcedureScheduler? {
        state.marks.scheduler == ObjectIdentifier(scheduler) && state.marks.running == ObjectIdentifier(procedure) ? scheduler : nil
    }

    /// This thread, if its loop runs `group` now and could take a loop from it (a loop that
    /// Dispatch started, holding none handed yet). Else nil.
    func loopRunning(_ group: Procedure) -> DrainLoopThread? {
        state.marks.running == ObjectIdentifier(group) && !state.marks.wasHanded && state.handed == nil ? self : nil
    }

    /// Takes `scheduler`'s loop on `queue`, to run once the current run returns, if this
    /// thread's loop runs on the same queue (so the loop runs where it would have run): true
    /// if taken.
    func take(_ scheduler: ProcedureScheduler, on queue: DispatchQueue) -> Bool {
        guard state.handed == nil, state.marks.queue == ObjectIdentifier(queue) else { return false }
        state.handed = HandedLoop(scheduler: scheduler, queue: queue)
        return true
    }

    /// The loop handed to this thread, taken out (the thread's loop runs it, or starts it elsewhere).
    @inline(__always)
    func takeHandedLoop() -> HandedLoop? {
        guard state.handed != nil else { return nil }
        return state.handed.take()
    }

    /// True if `scheduler` handed its loop to this thread and it has not run yet (for tests).
    func holdsHandedLoop(of scheduler: ProcedureScheduler) -> Bool {
        state.handed?.scheduler === scheduler
    }

    /// The loop `scheduler` handed to this thread, taken out; nil if it handed none.
    func takeHandedLoop(of scheduler: ProcedureScheduler) -> HandedLoop? {
        guard let handed = state.handed, handed.scheduler === scheduler else { return nil }
        state.handed = nil
        return handed
    }
}
