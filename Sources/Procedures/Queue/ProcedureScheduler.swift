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
/// dozen procedures. So most procedures cost no Dispatch block of their own. While procedures
/// stream in, a loop that runs out of work lingers briefly for the next (see `linger`), so
/// that the submitting thread need not wake another.
///
/// Every operation is O(1) (amortised); no lock is held while a procedure is started, and
/// nothing here blocks a thread (a linger yields its core and lasts at most 10 µs).
final class ProcedureScheduler: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.
    private let lock = InlineLock()
    /// Its slot holders that wait themselves, for the wait-for graph (their own lock).
    let waitingHolders = WaitingSlotHolders()
    @exclusivity(unchecked) private var width: Int
    @exclusivity(unchecked) private var running = 0
    /// Written only under `lock`, and read under it too, except by `parkWhileSuspended`: an
    /// atomic so that that one can read it without the lock (every procedure with conditions
    /// asks, and most queues are never suspended).
    private let suspendedFlag: Atomic<Bool>
    /// Under `lock`.
    private var suspended: Bool { suspendedFlag.load(ordering: .relaxed) }
    @exclusivity(unchecked) private var lastDecision = Int.min
    @exclusivity(unchecked) private var waiting = ReadyLine()
    /// Drain loops dispatched but not yet running (0 or 1).
    @exclusivity(unchecked) private var pendingLoops = 0
    /// Procedures whose condition checks wait for the scheduler to resume.
    @exclusivity(unchecked) private var parkedGates: [Procedure] = []
    @exclusivity(unchecked) private(set) var underlyingQueue: DispatchQueue?
    @exclusivity(unchecked) private(set) var qualityOfService: QualityOfService = .default
    @exclusivity(unchecked) private var target: DispatchQueue = GlobalQueues.default
    /// The group whose children this scheduler runs, from when it starts its children until it
    /// finishes (it sets and clears it). Strong, not weak: a weak reference gives the group a
    /// side table, after which every retain and release of it takes the slow path (about
    /// 3,500 instructions per group).
    @exclusivity(unchecked) private var holder: Procedure?
    /// True while the holder has given back its own slot because every child that held a
    /// slot here gave its slot back: nothing starts until the holder has one again.
    @exclusivity(unchecked) private var holderReleased = false
    /// True from deciding that the holder gives its slot back until it has (the release runs
    /// holding no lock of ours); a request for the slot meanwhile waits for it in
    /// `reacquireAfterRelease`, so that the request always follows the release.
    @exclusivity(unchecked) private var holderReleasing = false
    @exclusivity(unchecked) private var reacquireAfterRelease = false
    /// How many requests for the holder's slot came while it was being given back (for tests).
    @exclusivity(unchecked) private var reacquiresDeferred = 0
    @exclusivity(unchecked) private var holderReacquiring = false

    /// True while a drain loop lingers (see `linger`): it will take what is submitted meanwhile,
    /// so no other loop is started for it.
    @exclusivity(unchecked) private var lingering = false
    /// True while procedures arrive one shortly after another (the last loop that ran out of
    /// work was followed by a submission within `lingerNanoseconds`): the next loop that runs
    /// out lingers. Cleared by a linger that found nothing.
    @exclusivity(unchecked) private var streaming = false
    /// When the last loop ran out of work and left (uptime nanoseconds); 0 for never.
    @exclusivity(unchecked) private var idleSince: UInt64 = 0
    /// How many times a loop lingered (for tests).
    @exclusivity(unchecked) private var lingers = 0
    /// Set (under `lock`) when work arrives for a lingering loop; read without the lock by the
    /// lingering loop, which then takes the lock to take the work.
    private let lingerPoke = Atomic<Bool>(false)

    /// How many procedures a drain loop starts before it gives its thread back.
    private static let loopBudget = 64
    /// How long a loop that ran out of work waits for more, while procedures stream in, before
    /// it gives its thread back. Waking an idle Dispatch thread costs the submitting thread a
    /// system call and the woken one a context switch, together several microseconds: a loop
    /// that keeps its thread a little longer than that when the next procedure usually comes
    /// sooner saves both, and loses at most this much when it does not.
    private static let lingerNanoseconds: UInt64 = 10_000

    init(width: Int = -1, suspended: Bool = false) {
        self.width = width
        self.suspendedFlag = Atomic(suspended)
    }

    /// Makes `group` this scheduler's holder: when every procedure holding a slot here has
    /// given it back to wait, the group gives back its own slot too (so a retry waiting inside
    /// a group frees a slot of the queue the group runs on), and asks for it again before
    /// anything starts here.
    ///
    /// `nil` as the group finishes, which ends the reference cycle of a group and its
    /// scheduler.
    func setHolder(_ group: Procedure?) {
        lock.withLock { holder = group }
    }

    // MARK: - Settings

    /// How many procedures may hold a slot at once; -1 means no limit.
    var maxConcurrentOperationCount: Int {
        get { lock.withLock { width } }
        set {
            let loop = lock.withLock { () -> DispatchQueue? in
                width = newValue
                return loopNeeded()
            }
            loop.map(startLoop)
        }
    }

    var isSuspended: Bool { lock.withLock { suspended } }

    /// Suspends or resumes. Resuming starts waiting procedures and returns those whose
    /// condition checks were parked: the caller begins them holding no lock (they are user code).
    ///
    /// `decision` orders decisions taken elsewhere under another lock (a group's): one older
    /// than the last applied is ignored, so two threads cannot leave a stale value.
    func setSuspended(_ newValue: Bool, decision: Int? = nil) -> [Procedure] {
        let (loop, gates) = lock.withLock { () -> (DispatchQueue?, [Procedure]) in
            if let decision {
                guard decision > lastDecision else { return (nil, []) }
                lastDecision = decision
            }
            suspendedFlag.store(newValue, ordering: .releasing)
            guard !newValue else { return (nil, []) }
            defer { parkedGates = [] }
            return (loopNeeded(), parkedGates)
        }
        loop.map(startLoop)
        return gates
    }

    /// Parks `procedure`'s condition check if the scheduler is suspended (true), to be
    /// returned by the `setSuspended(false)` that resumes it.
    func parkWhileSuspended(_ procedure: Procedure) -> Bool {
        // Not suspended: nothing to park, and no lock taken. (A suspension racing with this
        // check is unordered with it anyway: it is as if it came just after.)
        guard suspendedFlag.load(ordering: .acquiring) else { return false }
        return lock.withLock {
            guard suspended else { return false }  // resumed meanwhile
            parkedGates.append(procedure)
            return true
        }
    }

    func setUnderlyingQueue(_ queue: DispatchQueue?) {
        lock.withLock {
            underlyingQueue = queue
            target = queue ?? Self.globalQueue(for: qualityOfService)
        }
    }

    func setQualityOfService(_ qos: QualityOfService) {
        lock.withLock {
            qualityOfService = qos
            if underlyingQueue == nil { target = Self.globalQueue(for: qos) }
        }
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
    var lingerCount: Int { lock.withLock { lingers } }

    /// How many times work arrived while the holder was giving its slot back (for tests).
    var deferredReacquireCount: Int { lock.withLock { reacquiresDeferred } }

    /// How many procedures hold a slot, and how many wait for one.
    var counts: (running: Int, waiting: Int) { lock.withLock { (running, waiting.count) } }

    /// Why a ready procedure in the line has not started: the scheduler is suspended, or
    /// every slot of its width is taken (that width), or neither (it starts presently).
    var readyHoldUp: (suspended: Bool, fullWidth: Int?) {
        lock.withLock { (suspended, width >= 0 && running >= width ? width : nil) }
    }

    // MARK: - Running

    /// `procedure` is ready: it starts when a slot is free (soon, if one is). True if it
    /// must wait for one (every slot taken, or the scheduler suspended or without its holder's slot).
    @discardableResult
    func submit(_ procedure: Procedure) -> Bool {
        let priority = procedure.queuePriority  // Foundation's getter: read before locking
        let (loop, reacquire, waits) = lock.withLock { () -> (DispatchQueue?, Procedure?, Bool) in
            waiting.append(procedure, priority: priority)
            // First: a holder that is finishing clears `holderReleased`, which lets a loop start.
            let reacquire = holderReleased ? holderToReacquire() : nil
            let waits = suspended || holderReleased || (width >= 0 && running + waiting.count > width)
            return (loopNeeded(), reacquire, waits)
        }
        loop.map(startLoop)
        if let reacquire { reacquireSlot(of: reacquire) }
        return waits
    }

    /// Runs `work` on the queue this scheduler starts procedures on (for a procedure that
    /// already holds a slot and waited for something else).
    func dispatch(_ work: @escaping @Sendable () -> Void) {
        lock.withLock { target }.async(execute: work)
    }

    /// A running procedure gave its slot back to wait (``Procedure/releaseSlot()``): the slot
    /// goes to the next in line. If none is left in use or wanted here, the holder gives its
    /// own slot back too, once this scheduler's lock is let go (its lock and its owner's
    /// scheduler's are taken for it), and asks for it again right after if work came meanwhile.
    func slotReleased() {
        let (loop, release) = lock.withLock { () -> (DispatchQueue?, Procedure?) in
            running -= 1
            var release: Procedure?
            if running == 0, waiting.count == 0, !holderReleased, let holder {
                holderReleased = true
                holderReleasing = true
                release = holder
            }
            return (loopNeeded(), release)
        }
        loop.map(startLoop)
        guard let release else { return }
        release.releaseSlot()
        let (next, reacquire) = lock.withLock { () -> (DispatchQueue?, Procedure?) in
            holderReleasing = false
            guard reacquireAfterRelease else { return (nil, nil) }
            reacquireAfterRelease = false
            let reacquire = holderToReacquire()
            return (loopNeeded(), reacquire)
        }
        next.map(startLoop)
        if let reacquire { reacquireSlot(of: reacquire) }
    }

    /// Under `lock`: the holder, if it must ask for its slot again (once). Not while it is
    /// still giving the slot back: the thread doing that asks once it has.
    private func holderToReacquire() -> Procedure? {
        if holderReleasing {
            reacquireAfterRelease = true
            reacquiresDeferred += 1
            return nil
        }
        guard !holderReacquiring else { return nil }
        guard let holder else {  // finishing: nothing to wait for
            holderReleased = false
            return nil
        }
        holderReacquiring = true
        return holder
    }

    /// Asks for the holder's slot again (holding no lock: the grant may come at once); work
    /// starts here once it has it. Only called once the holder has given its slot back (see
    /// `holderReleasing`), so the request always follows the release.
    private func reacquireSlot(of holder: Procedure) {
        holder.reacquireSlot { [self] in
            let loop = lock.withLock { () -> DispatchQueue? in
                holderReleased = false
                holderReacquiring = false
                return loopNeeded()
            }
            loop.map(startLoop)
        }
    }

    /// A procedure that held a slot has finished: its slot goes to the next in line.
    func didFinish() {
        let loop = lock.withLock { () -> DispatchQueue? in
            running -= 1
            return loopNeeded()
        }
        loop.map(startLoop)
    }

    /// Under `lock`: true if a waiting procedure could start now.
    private var canStart: Bool { !suspended && !holderReleased && (width < 0 || running < width) && waiting.count > 0 }

    /// Under `lock`: the queue to start a drain loop on, if one is needed and none is on its way
    /// (counted as pending from here). A lingering loop is told instead.
    private func loopNeeded() -> DispatchQueue? {
        guard pendingLoops == 0, canStart else { return nil }
        if lingering {
            lingerPoke.store(true, ordering: .relaxed)
            return nil
        }
        if idleSince != 0 {
            // Work again soon after the last loop left: from now on a loop that runs out of
            // work waits a little for more instead of leaving.
            streaming = DispatchTime.now().uptimeNanoseconds &- idleSince < Self.lingerNanoseconds
            idleSince = 0
        }
        pendingLoops += 1
        return target
    }

    private func startLoop(on queue: DispatchQueue) {
        queue.async { [self] in drain() }
    }

    /// What a drain loop does next.
    private enum Step {
        case run(Procedure, helper: DispatchQueue?)
        case linger
        case leave
    }

    /// Starts waiting procedures while slots are free, on the thread Dispatch lent it.
    private func drain() {
        var next = lock.withLock { () -> Step in
            pendingLoops -= 1
            return nextStep()
        }
        var started = 0
        while true {
            switch next {
            case .run(let procedure, let helper):
                helper.map(startLoop)
                procedure.run(scheduledBy: self)
                started += 1
                if started == Self.loopBudget {
                    // Gives the thread back; another loop carries on if work remains.
                    lock.withLock { loopNeeded() }.map(startLoop)
                    return
                }
                next = lock.withLock { nextStep() }
            case .linger:
                next = linger()
            case .leave:
                return
            }
        }
    }

    /// Under `lock`: the next waiting procedure if a slot is free (counted running, with the
    /// queue to start a helper loop on if more could start and no loop is on its way); else
    /// whether to linger or leave.
    private func nextStep() -> Step {
        if !suspended, !holderReleased, width < 0 || running < width, let procedure = waiting.popFirst() {
            running += 1
            return .run(procedure, helper: loopNeeded())
        }
        // Lingers only for an empty line (a full width or a suspension ends in a call that
        // starts a loop when it is over: a finish, a resume), and only on Dispatch's global
        // queues: on a user's own (serial) queue it would hold up the user's other blocks.
        if streaming, !lingering, underlyingQueue == nil, waiting.count == 0, !suspended, !holderReleased {
            lingering = true
            lingers += 1
            lingerPoke.store(false, ordering: .relaxed)
            return .linger
        }
        idleSince = DispatchTime.now().uptimeNanoseconds
        return .leave
    }

    /// Keeps the thread for up to `lingerNanoseconds`, watching for work without taking the
    /// lock (a relaxed load: the lock, taken when it is seen, orders the rest), then takes
    /// the next step. A linger that found nothing ends the streaming, so an idle scheduler
    /// lingers once and a scheduler that gets one procedure now and then never does. The
    /// wait is bounded and short (no thread is ever blocked): it only replaces a sleep and
    /// a wake-up that would cost more.
    private func linger() -> Step {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ Self.lingerNanoseconds
        while !lingerPoke.load(ordering: .relaxed) {
            // Lets any other runnable thread have this core meanwhile (the one that will
            // submit the work, a procedure of another queue): lingering must not take time
            // from the work it waits for.
            sched_yield()
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
        }
        return lock.withLock { () -> Step in
            lingering = false
            if waiting.count == 0 { streaming = false }
            return nextStep()
        }
    }
}

/// Waiting procedures: one FIFO per queue priority, highest priority first. O(1) amortised;
/// nothing is allocated for the first procedure that waits, nor for other priorities until
/// one is used (most procedures, and most groups' children, never need either).
struct ReadyLine {
    private var normal = FIFO()
    /// The other priorities' lines, made when a procedure of one of them first waits.
    private var others: OtherPriorities?
    private(set) var count = 0

    /// A reference, so that a line without other priorities carries one nil pointer.
    private final class OtherPriorities {
        var veryHigh = FIFO(), high = FIFO(), low = FIFO(), veryLow = FIFO()
    }

    mutating func append(_ procedure: Procedure, priority: Operation.QueuePriority) {
        count += 1
        if priority == .normal { return normal.append(procedure) }
        let lines = others ?? OtherPriorities()
        others = lines
        switch priority {
        case .veryHigh: lines.veryHigh.append(procedure)
        case .high: lines.high.append(procedure)
        case .low: lines.low.append(procedure)
        case .veryLow: lines.veryLow.append(procedure)
        default: normal.append(procedure)
        }
    }

    mutating func popFirst() -> Procedure? {
        guard count > 0 else { return nil }
        count -= 1
        guard let lines = others else { return normal.popFirst() }
        return lines.veryHigh.popFirst() ?? lines.high.popFirst() ?? normal.popFirst() ?? lines.low.popFirst()
            ?? lines.veryLow.popFirst()
    }

    /// A FIFO: the first procedure in a slot of its own, the rest in a ring buffer grown by
    /// doubling. O(1) at both ends.
    struct FIFO {
        /// The oldest procedure when it arrived in an empty FIFO (so one waiting procedure
        /// allocates nothing).
        private var first: Procedure?
        private var slots: [Procedure?] = []
        private var head = 0
        private var ringCount = 0

        mutating func append(_ procedure: Procedure) {
            if first == nil && ringCount == 0 { return first = procedure }
            if ringCount == slots.count { grow() }
            slots[(head + ringCount) & (slots.count - 1)] = procedure
            ringCount += 1
        }

        mutating func popFirst() -> Procedure? {
            if let procedure = first.take() { return procedure }
            guard ringCount > 0 else { return nil }
            let procedure = slots[head].take()
            head = (head + 1) & (slots.count - 1)
            ringCount -= 1
            return procedure
        }

        private mutating func grow() {
            let capacity = Swift.max(4, slots.count * 2)  // a power of two, for the masks
            var grown = [Procedure?]()
            grown.reserveCapacity(capacity)
            for offset in 0..<ringCount { grown.append(slots[(head + offset) & (slots.count - 1)]) }
            grown.append(contentsOf: repeatElement(nil, count: capacity - ringCount))
            slots = grown
            head = 0
        }
    }
}
