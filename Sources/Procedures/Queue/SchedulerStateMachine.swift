import Dispatch
import Foundation

/// Everything a ``ProcedureScheduler`` knows, as a value-type state machine.
///
/// The scheduler keeps one under its lock; each `mutating` method is one event and returns
/// what must happen next (an ``Action``, or a drain loop's ``Step``), which the scheduler
/// performs after unlocking. The machine touches no thread, lock or clock: the time an event
/// needs is passed in (`now`, uptime nanoseconds, read only if the event needs it), so tests
/// drive every transition by hand.
struct SchedulerStateMachine {
    /// What the scheduler does after unlocking. Never more than one thing: asking for the
    /// holder's slot again, or giving it back, leaves nothing to start here meanwhile.
    enum Action {
        case none
        /// Start a drain loop on this queue (counted pending already).
        case startLoop(DispatchQueue)
        /// Tell the loop that lingers that work has come.
        case pokeLingeringLoop
        /// The holder gives its slot back; then report ``releaseDone(now:)``.
        case releaseHolderSlot(Procedure)
        /// The holder asks for its slot again; once granted, report ``reacquired(now:)``.
        case reacquireHolderSlot(Procedure)
    }

    /// What resuming or suspending asks for: a loop to start, and the condition checks that
    /// were parked, for the caller to begin holding no lock (they are user code).
    struct SuspensionChange {
        var action: Action
        var resumedGates: [Procedure]
    }

    /// What a drain loop does next.
    enum Step {
        /// Start `procedure` (counted running), after performing `helper`: another loop when
        /// more could start and none is on its way.
        case run(Procedure, helper: Action)
        /// Keep the thread a little for more work, then report ``lingerEnded(startedSoFar:now:)``.
        case linger
        /// Nothing to start: give the thread back.
        case leave
        /// The loop spent its budget: give the thread back after performing the action (a loop
        /// to carry on, if work remains).
        case handBack(Action)
    }

    /// The holder's slot (a group's on the queue it runs on): work starts here only while the
    /// holder holds it, or when there is no holder.
    enum HolderSlot: Equatable {
        /// No holder: a queue's scheduler, or a group's before it starts its children and
        /// once it finishes.
        case none
        case held
        /// Giving it back is decided and done holding no lock; a request for it meanwhile
        /// (`requestPending`) is made once the release is done, so it always follows it.
        case releasing(requestPending: Bool)
        /// Given back: the next submission asks for it again.
        case released
        /// Asked for again, not yet granted.
        case reacquiring

        /// Whether work may start here.
        @inline(__always) var letsWorkStart: Bool {
            switch self {
            case .none, .held: return true
            case .releasing, .released, .reacquiring: return false
            }
        }
    }

    /// Whether a loop that runs out of work lingers for more.
    enum Linger: Equatable {
        /// The next loop that runs out leaves.
        case quiet
        /// Procedures arrive one shortly after another: the next loop that runs out lingers.
        case streaming
        /// The last loop that ran out of work left at `since`; the next loop started measures
        /// the gap to decide whether procedures stream. Until then, loops still running go by
        /// `streaming` as it was.
        case idle(since: UInt64, streaming: Bool)
        /// A loop lingers: it takes what is submitted meanwhile, so no loop is started for it.
        /// `idleSince`: when another loop ran out and left meanwhile.
        case lingering(idleSince: UInt64?)
    }

    /// How many procedures a drain loop starts before it gives its thread back.
    static let loopBudget = 64
    /// How long a loop that ran out of work waits for more, while procedures stream in, before
    /// it gives its thread back. Waking an idle Dispatch thread costs the submitting thread a
    /// system call and the woken one a context switch, together several microseconds: a loop
    /// that keeps its thread a little longer than that when the next procedure usually comes
    /// sooner saves both, and loses at most this much when it does not.
    static let lingerNanoseconds: UInt64 = 10_000

    /// How many procedures may hold a slot at once; -1 means no limit.
    private(set) var width: Int
    private(set) var running = 0
    /// A stored field, never an enum payload, so that it is mutated in place.
    private(set) var line = ReadyLine()
    private(set) var isSuspended: Bool
    private var lastDecision = Int.min
    /// Procedures whose condition checks wait for the scheduler to resume.
    private(set) var parkedGates: [Procedure] = []
    /// Drain loops dispatched but not yet running (0 or 1).
    private(set) var pendingLoops = 0
    private(set) var underlyingQueue: DispatchQueue?
    private(set) var qualityOfService: QualityOfService = .default
    private var target: DispatchQueue
    /// The group whose children this scheduler runs (see ``setHolder(_:)``). Strong, not weak:
    /// a weak reference gives the group a side table, after which every retain and release of
    /// it takes the slow path.
    private(set) var holder: Procedure?
    private(set) var slot = HolderSlot.none
    private(set) var linger = Linger.quiet
    /// How many times a loop lingered (for tests).
    private(set) var lingerCount = 0
    /// How many loops began on the thread of the loop that ran the group (for tests).
    private(set) var handedLoopCount = 0
    /// How many requests for the holder's slot came while it was being given back (for tests).
    private(set) var deferredReacquireCount = 0

    init(width: Int = -1, suspended: Bool = false) {
        self.width = width
        self.isSuspended = suspended
        self.target = ProcedureScheduler.globalQueue(for: .default)
    }

    // MARK: - Settings

    /// Makes `group` the holder (`nil` as it finishes). Never an action: a holder set or
    /// cleared while it holds its slot changes nothing that starts, and one cleared once its
    /// slot is given back leaves nothing waiting (the next submission would have asked for it).
    /// One cleared while its slot is being given back or asked for is let go when that is done.
    @inline(__always) mutating func setHolder(_ group: Procedure?) {
        holder = group
        switch (slot, group) {
        case (.none, .some): slot = .held
        case (.held, nil), (.released, nil): slot = .none
        default: break
        }
    }

    @inline(__always) mutating func setWidth(_ newValue: Int, now: @autoclosure () -> UInt64) -> Action {
        width = newValue
        return loopNeeded(now: now())
    }

    /// Suspends or resumes; resuming hands back the parked condition checks. `decision`
    /// orders decisions taken elsewhere under another lock (a group's): one not newer than the
    /// last applied is ignored, so two threads cannot leave a stale value.
    mutating func setSuspended(_ newValue: Bool, decision: Int?, now: @autoclosure () -> UInt64) -> SuspensionChange {
        if let decision {
            guard decision > lastDecision else { return SuspensionChange(action: .none, resumedGates: []) }
            lastDecision = decision
        }
        isSuspended = newValue
        guard !newValue else { return SuspensionChange(action: .none, resumedGates: []) }
        defer { parkedGates = [] }
        return SuspensionChange(action: loopNeeded(now: now()), resumedGates: parkedGates)
    }

    /// Parks `procedure`'s condition check if suspended (true).
    mutating func parkWhileSuspended(_ procedure: Procedure) -> Bool {
        guard isSuspended else { return false }
        parkedGates.append(procedure)
        return true
    }

    mutating func setUnderlyingQueue(_ queue: DispatchQueue?) {
        underlyingQueue = queue
        target = queue ?? ProcedureScheduler.globalQueue(for: qualityOfService)
    }

    mutating func setQualityOfService(_ qos: QualityOfService) {
        qualityOfService = qos
        if underlyingQueue == nil { target = ProcedureScheduler.globalQueue(for: qos) }
    }

    /// The queue drain loops run on.
    var targetQueue: DispatchQueue { target }

    /// True if the procedures in line cannot all start now: suspended, the holder's slot
    /// given back, or more in line than free slots (asked right after a submit).
    var waitsForSlot: Bool {
        isSuspended || !slot.letsWorkStart || (width >= 0 && running + line.count > width)
    }

    /// Why a ready procedure in the line has not started: suspended, or every slot of its
    /// width taken (that width), or neither.
    var readyHoldUp: (suspended: Bool, fullWidth: Int?) {
        (isSuspended, width >= 0 && running >= width ? width : nil)
    }

    // MARK: - Work arriving and leaving

    /// `procedure` is ready, at `priority`. If the holder's slot was given back, asks for it
    /// again (once), or has the release ask once it is done.
    @inline(__always) mutating func submit(_ procedure: Procedure, priority: Operation.QueuePriority, now: @autoclosure () -> UInt64) -> Action {
        line.append(procedure, priority: priority)
        if !slot.letsWorkStart {
            switch slot {
            case .releasing:
                slot = .releasing(requestPending: true)
                deferredReacquireCount += 1
            case .released:
                guard let holder else {
                    slot = .none  // not reached: a cleared holder leaves `released` at once
                    break
                }
                slot = .reacquiring
                return .reacquireHolderSlot(holder)
            case .none, .held, .reacquiring:
                break
            }
        }
        return loopNeeded(now: now())
    }

    /// `procedure` is ready, and a drain loop is about to take its next step on the submitting
    /// thread (see ``ProcedureScheduler/submitToRunningLoop(_:)``): if it could start now, that
    /// loop takes it (`handed`) and no loop is started; otherwise as ``submit(_:priority:now:)``.
    mutating func submitToRunningLoop(_ procedure: Procedure, priority: Operation.QueuePriority, now: @autoclosure () -> UInt64) -> (handed: Bool, action: Action) {
        guard !isSuspended, slot.letsWorkStart, width < 0 || running + line.count < width else {
            return (false, submit(procedure, priority: priority, now: now()))
        }
        line.append(procedure, priority: priority)
        return (true, .none)
    }

    /// User code is about to run before the loop that procedures were handed to takes its next
    /// step: a loop if one is needed, as for any submission.
    mutating func handedWorkNeedsLoop(now: @autoclosure () -> UInt64) -> Action {
        loopNeeded(now: now())
    }

    /// A running procedure gave its slot back to wait: the slot goes to the next in line. If
    /// none is left in use or wanted here, the holder gives its own slot back too.
    @inline(__always) mutating func slotReleased(now: @autoclosure () -> UInt64) -> Action {
        running -= 1
        if running == 0, line.count == 0, case .held = slot, let holder {
            slot = .releasing(requestPending: false)
            return .releaseHolderSlot(holder)
        }
        return loopNeeded(now: now())
    }

    /// The holder has given its slot back: if work came meanwhile, it asks for it again now.
    mutating func releaseDone(now: @autoclosure () -> UInt64) -> Action {
        guard case .releasing(let requestPending) = slot else {
            preconditionFailure("a holder's slot was reported given back that was not being given back")
        }
        guard let holder else {  // finishing: nothing to wait for
            slot = .none
            return loopNeeded(now: now())
        }
        guard requestPending else {
            slot = .released
            return .none
        }
        slot = .reacquiring
        return .reacquireHolderSlot(holder)
    }

    /// The holder has its slot again: work starts here.
    mutating func reacquired(now: @autoclosure () -> UInt64) -> Action {
        guard case .reacquiring = slot else { preconditionFailure("a holder's slot was granted that was not asked for") }
        slot = holder == nil ? .none : .held
        return loopNeeded(now: now())
    }

    /// A procedure that held a slot has finished: its slot goes to the next in line.
    @inline(__always) mutating func didFinish(now: @autoclosure () -> UInt64) -> Action {
        running -= 1
        return loopNeeded(now: now())
    }

    // MARK: - Drain loops

    /// A drain loop begins, on the thread Dispatch lent it, or (`handed`) on the thread of the
    /// loop that ran the group that started it.
    @inline(__always) mutating func loopStarted(handed: Bool = false, now: @autoclosure () -> UInt64) -> Step {
        pendingLoops -= 1
        if handed { handedLoopCount += 1 }
        return nextStep(startedSoFar: 0, now: now())
    }

    /// The next waiting procedure if a slot is free (counted running, with another loop to
    /// start if more could start and none is on its way); else whether to linger or leave. A
    /// loop that has started `loopBudget` procedures hands its thread back instead.
    @inline(__always) mutating func nextStep(startedSoFar started: Int, now: @autoclosure () -> UInt64) -> Step {
        // Gives the thread back; another loop carries on if work remains.
        if started == Self.loopBudget { return .handBack(loopNeeded(now: now())) }
        if !isSuspended, slot.letsWorkStart, width < 0 || running < width, let procedure = line.popFirst() {
            running += 1
            return .run(procedure, helper: loopNeeded(now: now()))
        }
        // Lingers only for an empty line (a full width or a suspension ends in an event that
        // starts a loop when it is over: a finish, a resume), and only on Dispatch's global
        // queues: on a user's own (serial) queue it would hold up the user's other blocks.
        if underlyingQueue == nil, line.count == 0, !isSuspended, slot.letsWorkStart {
            switch linger {
            case .streaming:
                linger = .lingering(idleSince: nil)
                lingerCount += 1
                return .linger
            case .idle(let since, streaming: true):
                linger = .lingering(idleSince: since)
                lingerCount += 1
                return .linger
            case .quiet, .idle, .lingering:
                break
            }
        }
        let time = now()
        switch linger {
        case .quiet: linger = .idle(since: time, streaming: false)
        case .streaming: linger = .idle(since: time, streaming: true)
        case .idle(_, let streaming): linger = .idle(since: time, streaming: streaming)
        case .lingering: linger = .lingering(idleSince: time)
        }
        return .leave
    }

    /// The lingering loop saw work come, or waited long enough. A linger that found nothing
    /// ends the streaming, so an idle scheduler lingers once and a scheduler that gets one
    /// procedure now and then never does.
    mutating func lingerEnded(startedSoFar started: Int, now: @autoclosure () -> UInt64) -> Step {
        guard case .lingering(let idleSince) = linger else {
            preconditionFailure("a linger ended that had not begun")
        }
        let streaming = line.count > 0
        if let idleSince {
            linger = .idle(since: idleSince, streaming: streaming)
        } else {
            linger = streaming ? .streaming : .quiet
        }
        return nextStep(startedSoFar: started, now: now())
    }

    /// True if a waiting procedure could start now.
    @inline(__always) private var canStart: Bool {
        !isSuspended && slot.letsWorkStart && (width < 0 || running < width) && line.count > 0
    }

    /// A loop if one is needed and none is on its way (counted pending from here); a poke
    /// instead if a loop lingers. Starting a loop after one ran out and left measures the gap:
    /// work again soon after means that procedures stream in.
    @inline(__always) private mutating func loopNeeded(now: @autoclosure () -> UInt64) -> Action {
        guard pendingLoops == 0, canStart else { return .none }
        switch linger {
        case .lingering:
            return .pokeLingeringLoop
        case .idle(let since, _):
            linger = now() &- since < Self.lingerNanoseconds ? .streaming : .quiet
        case .quiet, .streaming:
            break
        }
        pendingLoops += 1
        return .startLoop(target)
    }
}
