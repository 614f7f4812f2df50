import Dispatch
import Foundation
import ProceduresSupport

/// Hands ready work to Dispatch within a width: the part of a queue that decides *when* a
/// ready procedure runs (a plain operation runs inside a procedure that
/// wraps it, so it shares the width). Both ``ProcedureQueue`` and ``GroupProcedure``
/// own one; neither goes through Foundation's `OperationQueue` machinery.
///
/// - Width: at most `width` pieces of work hold a slot at once (-1: no limit). A procedure
///   holds its slot from the moment it is started until it has finished.
/// - Order: among waiting work, higher `queuePriority` first, FIFO within a priority.
/// - Suspension: while suspended nothing new starts (running work carries on); condition
///   checks that would start meanwhile are parked here and resumed with the scheduler.
/// - Where: on `underlyingQueue` when one is set, else on the global queue of the mapped QoS.
///
/// Every operation is O(1) (amortised); no lock is held while work is started, and nothing
/// here blocks a thread.
final class ProcedureScheduler: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`, except `target`, which is read
    // without it on the hot path: it is a reference written under the lock and only changed
    // while nothing runs (as Foundation requires for `underlyingQueue`).
    private let lock = Lock()
    @exclusivity(unchecked) private var width: Int
    @exclusivity(unchecked) private var running = 0
    @exclusivity(unchecked) private var suspended: Bool
    @exclusivity(unchecked) private var lastDecision = Int.min
    @exclusivity(unchecked) private var waiting = ReadyLine()
    /// Procedures whose condition checks wait for the scheduler to resume.
    @exclusivity(unchecked) private var parkedGates: [Procedure] = []
    @exclusivity(unchecked) private(set) var underlyingQueue: DispatchQueue?
    @exclusivity(unchecked) private(set) var qualityOfService: QualityOfService = .default
    @exclusivity(unchecked) private var target: DispatchQueue = .global()

    init(width: Int = -1, suspended: Bool = false) {
        self.width = width
        self.suspended = suspended
    }

    // MARK: - Settings

    /// How many pieces of work may hold a slot at once; -1 means no limit.
    var maxConcurrentOperationCount: Int {
        get { lock.withLock { width } }
        set {
            let start = lock.withLock { () -> [Procedure] in
                width = newValue
                return takeStartable()
            }
            dispatch(start)
        }
    }

    var isSuspended: Bool { lock.withLock { suspended } }

    /// Suspends or resumes. Resuming starts waiting work and returns the procedures whose
    /// condition checks were parked: the caller begins them holding no lock (they are user code).
    ///
    /// `decision` orders decisions taken elsewhere under another lock (a group's): one older
    /// than the last applied is ignored, so two threads cannot leave a stale value.
    func setSuspended(_ newValue: Bool, decision: Int? = nil) -> [Procedure] {
        let (start, gates) = lock.withLock { () -> ([Procedure], [Procedure]) in
            if let decision {
                guard decision > lastDecision else { return ([], []) }
                lastDecision = decision
            }
            suspended = newValue
            guard !newValue else { return ([], []) }
            defer { parkedGates = [] }
            return (takeStartable(), parkedGates)
        }
        dispatch(start)
        return gates
    }

    /// Parks `procedure`'s condition check if the scheduler is suspended (true), to be
    /// returned by the `setSuspended(false)` that resumes it.
    func parkWhileSuspended(_ procedure: Procedure) -> Bool {
        lock.withLock {
            guard suspended else { return false }
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
        case .userInteractive: return .global(qos: .userInteractive)
        case .userInitiated: return .global(qos: .userInitiated)
        case .utility: return .global(qos: .utility)
        case .background: return .global(qos: .background)
        default: return .global()
        }
    }

    /// The Dispatch queue work is started on now (for tests and diagnostics).
    var targetQueue: DispatchQueue { lock.withLock { target } }

    /// How many pieces of work hold a slot, and how many wait for one.
    var counts: (running: Int, waiting: Int) { lock.withLock { (running, waiting.count) } }

    // MARK: - Running

    /// `procedure` is ready: start it when a slot is free (now, if one is).
    func submit(_ procedure: Procedure) {
        let start = lock.withLock { () -> Bool in
            if !suspended && (width < 0 || running < width) {
                running += 1
                return true
            }
            // Read only when it must wait: Foundation's getter takes a lock of its own.
            waiting.append(procedure, priority: procedure.queuePriority)
            return false
        }
        if start { dispatch(procedure) }
    }

    /// A piece of work that held a slot has finished: its slot goes to the next in line.
    func didFinish() {
        let next = lock.withLock { () -> Procedure? in
            running -= 1
            guard !suspended, width < 0 || running < width, let next = waiting.popFirst() else { return nil }
            running += 1
            return next
        }
        if let next { dispatch(next) }
    }

    /// Under `lock`: takes as much waiting work as the free slots allow, counting it running.
    private func takeStartable() -> [Procedure] {
        guard !suspended else { return [] }
        var start: [Procedure] = []
        while width < 0 || running < width, let next = waiting.popFirst() {
            running += 1
            start.append(next)
        }
        return start
    }

    private func dispatch(_ procedures: [Procedure]) {
        for procedure in procedures { dispatch(procedure) }
    }

    private func dispatch(_ procedure: Procedure) {
        let target = lock.withLock { self.target }
        target.async { [self] in procedure.run(scheduledBy: self) }
    }
}

/// Waiting work: one FIFO per queue priority, highest priority first. O(1) amortised.
struct ReadyLine {
    private var lines: [FIFO] = Array(repeating: FIFO(), count: 5)
    private(set) var count = 0

    mutating func append(_ procedure: Procedure, priority: Operation.QueuePriority) {
        lines[Self.index(of: priority)].append(procedure)
        count += 1
    }

    mutating func popFirst() -> Procedure? {
        guard count > 0 else { return nil }
        for index in stride(from: lines.count - 1, through: 0, by: -1) {
            if let procedure = lines[index].popFirst() {
                count -= 1
                return procedure
            }
        }
        return nil
    }

    private static func index(of priority: Operation.QueuePriority) -> Int {
        switch priority {
        case .veryLow: return 0
        case .low: return 1
        case .normal: return 2
        case .high: return 3
        case .veryHigh: return 4
        @unknown default: return 2
        }
    }

    /// An array read from a moving head, compacted once half of it is consumed.
    struct FIFO {
        private var items: [Procedure] = []
        private var head = 0

        mutating func append(_ procedure: Procedure) { items.append(procedure) }

        mutating func popFirst() -> Procedure? {
            guard head < items.count else { return nil }
            let procedure = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: items.capacity <= 64)
                head = 0
            } else if head >= 64 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return procedure
        }
    }
}
