import ProceduresSupport

/// What the drain loop on the current thread is running: which scheduler's loop it is, and
/// which procedure it runs now (identities only, never retained).
///
/// It lets a procedure that finishes inside its own run hand what its finish makes ready
/// (the next holder of its categories, a repeat's next operation) to the loop that will take
/// its next step as soon as the run returns, instead of starting another loop for it (see
/// ``ProcedureScheduler``).
final class DrainLoopThread {
    /// The loop's scheduler and the procedure it runs now.
    private struct Marks {
        var scheduler: ObjectIdentifier?
        var running: ObjectIdentifier?
    }

    // Unchecked: one per thread, touched only by its thread.
    @exclusivity(unchecked) private var marks = Marks()

    private static let perThread = PerThread { DrainLoopThread() }

    /// This thread's.
    static var current: DrainLoopThread { perThread.current }

    /// Runs `body` as `scheduler`'s drain loop on this thread, restoring what was there.
    @inline(__always)
    func loop<T>(of scheduler: ProcedureScheduler, _ body: () -> T) -> T {
        let outer = marks
        marks = Marks(scheduler: ObjectIdentifier(scheduler))
        defer { marks = outer }
        return body()
    }

    /// Runs `procedure` as the loop's current one.
    @inline(__always)
    func run(_ procedure: Procedure, _ body: () -> Void) {
        marks.running = ObjectIdentifier(procedure)
        body()
        marks.running = nil
    }

    /// `scheduler`, if this thread's loop is its and runs `procedure` now: the loop that takes
    /// its next step as soon as `procedure`, finishing inside that run, returns. Else nil.
    func comingLoop(of scheduler: ProcedureScheduler, running procedure: Procedure) -> ProcedureScheduler? {
        marks.scheduler == ObjectIdentifier(scheduler) && marks.running == ObjectIdentifier(procedure) ? scheduler : nil
    }
}
