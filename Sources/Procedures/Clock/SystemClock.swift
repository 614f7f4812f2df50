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
    // @unchecked: `heap` and `armedDeadline` are only touched under `lock`; the timer source
    // is thread-safe and is only rescheduled under `lock`, so two reschedules cannot land in
    // the wrong order; `queue` and `timer` are immutable.

    /// The one real-time clock.
    public static let shared = SystemClock()

    private let lock = InlineLock()
    @exclusivity(unchecked) private var heap = TimerHeap()
    /// The deadline the timer is armed for; nil when it is idle.
    @exclusivity(unchecked) private var armedDeadline: Double?
    private let queue = DispatchQueue(label: "Procedures.SystemClock")
    private let timer: DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in fire() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    /// Seconds of monotonic uptime.
    public var now: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }

    /// Schedules `action` for `deadline`; see ``ProcedureClock/schedule(at:_:)``.
    public func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any Cancelable {
        lock.withLock {
            let entry = heap.insert(deadline: deadline, owner: self, action: action)
            // Only an earlier deadline re-arms the timer. One that becomes first because the
            // one before it was cancelled waits for the timer's (early, harmless) firing:
            // cancelling a timeout then costs no rescheduling at all.
            if armedDeadline.map({ entry.deadline < $0 }) ?? true { arm(for: entry.deadline) }
            return entry
        }
    }

    package func cancel(_ entry: TimerHeap.Entry) {
        let action = lock.withLock { heap.remove(entry) }
        withExtendedLifetime(action) {}  // released here, outside the lock
    }

    /// How many callbacks are pending (for tests and diagnostics).
    public var pendingCount: Int { lock.withLock { heap.count } }

    /// Must be called under `lock`.
    private func arm(for deadline: Double) {
        armedDeadline = deadline
        timer.schedule(deadline: Self.dispatchTime(deadline), leeway: .milliseconds(1))
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
        lock.withLock {
            while let (_, action) = heap.popFirst(dueAt: time) { due.append(action) }
            armedDeadline = nil
            if let next = heap.first { arm(for: next.deadline) }
        }
        for action in due { action() }
    }
}
