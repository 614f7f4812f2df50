import Dispatch
import Foundation
import ProceduresSupport

/// Real time: the clock every wait uses unless told otherwise.
///
/// All its callbacks share **one** `DispatchSourceTimer`, armed for the earliest deadline:
/// a hundred thousand pending timeouts cost a hundred thousand small heap entries, not a
/// hundred thousand timers or threads, and cancelling one is O(log n). Callbacks run on one
/// serial dispatch queue, in deadline order, so keep them short (the library's own only
/// finish or cancel a procedure).
///
/// Its time is the system's monotonic uptime (`DispatchTime`), in seconds: it does not jump
/// when the wall clock is changed.
public final class SystemClock: ProcedureClock, TimerHeapOwner, @unchecked Sendable {
    // @unchecked: `timing` is only touched under `lock`; the timer source is thread-safe (it
    // is rescheduled holding no lock; see `arm`); `queue` and `timer` are immutable.

    /// The one real-time clock.
    public static let shared = SystemClock()

    private let lock = InlineLock()
    // Unchecked: only touched under `lock`, which already excludes every other access.
    @exclusivity(unchecked) private var timing = Timing()
    private let queue = DispatchQueue(label: "Procedures.SystemClock")
    private let timer: DispatchSourceTimer
    /// Arms the timer for a deadline: Dispatch's `schedule`, or, in a test, a step that lets
    /// another thread overtake the arming.
    private let armTimer: @Sendable (DispatchSourceTimer, DispatchTime) -> Void

    private convenience init() {
        self.init { timer, deadline in timer.schedule(deadline: deadline, leeway: .milliseconds(1)) }
    }

    /// A clock of its own, arming its timer through `armTimer` (for tests).
    init(armTimer: @escaping @Sendable (DispatchSourceTimer, DispatchTime) -> Void) {
        self.armTimer = armTimer
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in fire() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    deinit {
        timer.cancel()  // the shared clock lives for good; a test's may not
    }

    /// Seconds of monotonic uptime.
    public var now: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }

    /// Schedules `action` for `deadline`; see ``ProcedureClock/schedule(at:_:)``.
    public func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any Cancelable {
        let (entry, arming) = lock.withLock { timing.insert(deadline: deadline, owner: self, action: action) }
        if let arming { arm(arming) }
        return entry
    }

    package func cancel(_ entry: TimerHeap.Entry) {
        let action = lock.withLock { timing.heap.remove(entry) }
        withExtendedLifetime(action) {}  // released here, outside the lock
    }

    /// How many callbacks are pending (for tests and diagnostics).
    public var pendingCount: Int { lock.withLock { timing.heap.count } }

    /// How many times the timer was armed again because a newer decision came meanwhile.
    var repeatedArmingCount: Int { lock.withLock { timing.rearmsRepeated } }

    /// A decision to arm the timer for `deadline`, the `generation`th taken.
    struct Arming: Equatable {
        var deadline: Double
        var generation: Int
    }

    /// What the clock decides under its lock: its pending callbacks, and when the timer is to
    /// fire. Each event returns the arming to perform, which `arm` performs after unlocking.
    /// (Internal, not private, so that tests drive it without threads or timers.)
    struct Timing {
        var heap = TimerHeap()
        /// The deadline the timer is armed for, as last decided; nil when it is idle.
        var armedDeadline: Double?
        /// Counts the decisions to arm the timer, so that one applied late can be told apart.
        var armings = 0
        /// How many times a thread armed the timer again because a newer decision came while
        /// it armed it (for tests).
        var rearmsRepeated = 0

        /// Adds a callback; the timer is armed again only if it is the earliest.
        mutating func insert(
            deadline: Double, owner: SystemClock, action: @escaping @Sendable () -> Void
        ) -> (TimerHeap.Entry, Arming?) {
            let entry = heap.insert(deadline: deadline, owner: owner, action: action)
            // Only an earlier deadline re-arms the timer. One that becomes first because the
            // one before it was cancelled waits for the timer's (early, harmless) firing:
            // cancelling a timeout then costs no rescheduling at all.
            guard armedDeadline.map({ entry.deadline < $0 }) ?? true else { return (entry, nil) }
            return (entry, decideArming(for: entry.deadline))
        }

        /// The timer fired at `time`: takes out what is due and decides the next arming (nil:
        /// idle, a decision too).
        mutating func fire(at time: Double, into due: inout [@Sendable () -> Void]) -> Arming? {
            while let (_, action) = heap.popFirst(dueAt: time) { due.append(action) }
            if let next = heap.first { return decideArming(for: next.deadline) }
            armedDeadline = nil
            armings += 1
            return nil
        }

        /// A thread has armed the timer as `arming` decided: the newer decision it must arm
        /// for in turn, if one was taken meanwhile.
        mutating func armed(_ arming: Arming) -> Arming? {
            guard armings != arming.generation, let deadline = armedDeadline else { return nil }
            rearmsRepeated += 1
            return Arming(deadline: deadline, generation: armings)
        }

        /// The timer is to fire at `deadline`.
        private mutating func decideArming(for deadline: Double) -> Arming {
            armedDeadline = deadline
            armings += 1
            return Arming(deadline: deadline, generation: armings)
        }
    }

    /// Arms the timer as decided, holding no lock (Dispatch's timer takes locks of its own).
    /// Two threads may arm it in the opposite order to their decisions, leaving it armed for a
    /// deadline that is no longer the earliest; so each checks, after arming, that no decision
    /// came since its own, and otherwise arms it again for the latest. The last to arm then
    /// always arms it as last decided. (Armed too early, the timer would only fire, find
    /// nothing due and re-arm; too late is what must not happen.)
    private func arm(_ decided: Arming) {
        var arming = decided
        while true {
            armTimer(timer, Self.dispatchTime(arming.deadline))
            let newer = lock.withLock { timing.armed(arming) }
            guard let newer else { return }
            arming = newer
        }
    }

    private static func dispatchTime(_ deadline: Double) -> DispatchTime {
        guard deadline > 0 else { return DispatchTime(uptimeNanoseconds: 1) }
        // Beyond about 292 years of uptime the nanoseconds overflow: treat it as never.
        guard deadline < 9_000_000_000 else { return .distantFuture }
        // Rounded up, so that the timer never fires a hair before the deadline it was armed for.
        return DispatchTime(uptimeNanoseconds: UInt64((deadline * 1_000_000_000).rounded(.up)))
    }

    /// Runs what is due, in deadline order, then re-arms for the next deadline.
    private func fire() {
        let time = now
        var due: [@Sendable () -> Void] = []
        let arming = lock.withLock { timing.fire(at: time, into: &due) }
        if let arming { arm(arming) }
        assertNoLibraryLockHeld("the system clock's due actions")
        for action in due { action() }
    }
}
