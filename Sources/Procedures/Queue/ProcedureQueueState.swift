import Foundation

/// What a ``ProcedureQueue``'s lock guards, as one value: its members, the last barrier, who
/// waits for it to empty, and the finished procedures whose release waits. Its events return
/// what the queue does once it has let go of the lock. (The delegate, held weakly, is beside
/// it under the same lock: a weak field would make every copy of this value a runtime call.)
struct ProcedureQueueState {
    /// Every unfinished operation added to the queue, oldest first (a plain operation's entry
    /// is the runner that starts it). O(1) in and out, no hashing: see `MemberList`.
    var members = MemberList()
    /// The runners of the plain operations among them, by operation (plain operations are
    /// rare; the table catches a second add of one).
    var plainMembers: [ObjectIdentifier: PlainOperationRunner] = [:]
    /// The last barrier block's procedure; operations added after it depend on it. It depends
    /// on every earlier operation, including the previous barrier.
    var pendingBarrier: BarrierProcedure?
    /// Threads blocked in `waitUntilAllOperationsAreFinished`, woken once the queue is empty.
    var idleWaiters = 0
    /// Finished procedures whose release waits for the next thread that adds one: freed on the
    /// thread that allocated them, their blocks skip the contended lock of that thread's glibc
    /// arena (Internals.md, "Who frees a finished procedure"). So that nothing lingers, the
    /// finishing thread releases them once the queue is idle or `unreleasedLimit` wait.
    var finishedUnreleased: [Procedure] = []

    /// What the queue does, holding no lock, once a member finished.
    struct FinishAction {
        /// Finished procedures to let go of (their deinits are user code).
        var release: [Procedure] = []
        /// The queue is empty and threads wait for that: wake them.
        var wakesWaiters = false
    }

    /// A member finished and was taken out of `members` (`removed`: the queue's reference to
    /// it, nil if it was not a member).
    @inline(__always)
    mutating func memberFinished(_ procedure: Procedure, removed: Procedure?) -> FinishAction {
        var action = FinishAction()
        if let removed { finishedUnreleased.append(removed) }
        if members.isEmpty || finishedUnreleased.count >= ProcedureQueue.unreleasedLimit {
            swap(&action.release, &finishedUnreleased)
        }
        if pendingBarrier === procedure { pendingBarrier = nil }
        action.wakesWaiters = members.isEmpty && idleWaiters > 0
        return action
    }

    /// A barrier block's procedure was added: it becomes the barrier later operations wait
    /// for. Returns the previous barrier (to let go of outside the lock: it may hold the last
    /// reference to user state) and every earlier member, which the barrier waits for.
    mutating func barrierAdded(_ barrier: BarrierProcedure) -> (previous: BarrierProcedure?, earlier: [Procedure]) {
        let earlier = members.procedures
        let previous = pendingBarrier
        pendingBarrier = barrier
        members.append(barrier)
        return (previous, earlier)
    }
}
