import Foundation
import Procedures

/// A clock that only moves when a test moves it: pass it as the `clock:` of a
/// ``DelayProcedure``, ``RetryProcedure``, ``RepeatProcedure`` or ``TimeoutObserver`` and a
/// minute of back-off runs in milliseconds, deterministically.
///
/// ``advance(by:)`` and ``advance(to:)`` run every callback that falls due, one at a time, in
/// deadline order (scheduling order for equal deadlines), on the calling thread, each with
/// ``now`` set to its own deadline; callbacks that those schedule within the advanced span run
/// too. ``runUntilIdle()`` jumps from deadline to deadline until nothing is pending.
///
/// Work a callback starts on a queue (the next attempt of a retry, say) schedules its own waits
/// later, on another thread. Wait for that with ``whenScheduled(_:then:)``, ``scheduled(_:)``
/// or, in an `XCTestCase`, `advance(_:by:)` (in a `@Test` function, `try await advance(_:by:)`),
/// which waits for the wait to be scheduled before advancing through it: no sleeps needed.
///
/// ```swift
/// let clock = ManualClock()
/// let delay = DelayProcedure(by: 60, clock: clock)
/// ProcedureQueue().addOperation(delay)
/// advance(clock, by: 60)  // waits until the delay is scheduled, then runs it
/// wait(for: delay)
/// ```
public final class ManualClock: ProcedureClock, TimerHeapOwner, @unchecked Sendable {
    // @unchecked: every stored property is only touched under `lock`; callbacks and watchers
    // are always called after unlocking.

    private let lock = NSLock()
    private var heap = TimerHeap()
    private var time: TimeInterval
    private var watchers: [Int: Watcher] = [:]
    private var nextWatcherID = 0

    private struct Watcher {
        let predicate: @Sendable ([TimeInterval]) -> Bool
        let action: @Sendable () -> Void
    }

    /// A clock reading `now`.
    public init(now: TimeInterval = 0) {
        time = now
    }

    /// The clock's time; it changes only through ``advance(by:)``, ``advance(to:)`` and
    /// ``runUntilIdle()``.
    public var now: TimeInterval { lock.withLock { time } }

    /// The deadlines of the callbacks still pending, earliest first.
    public var pendingDeadlines: [TimeInterval] { lock.withLock { heap.sortedDeadlines } }

    /// The earliest pending deadline, if any.
    public var nextDeadline: TimeInterval? { lock.withLock { heap.first?.deadline } }

    /// Schedules `action` for `deadline`; see ``ProcedureClock/schedule(at:_:)``. A deadline
    /// that is not after ``now`` runs at the next advance (`advance(by: 0)` will do).
    public func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any Cancelable {
        let (entry, watching) = lock.withLock { () -> (TimerHeap.Entry, Bool) in
            (heap.insert(deadline: deadline, owner: self, action: action), !watchers.isEmpty)
        }
        if watching { runSatisfiedWatchers() }
        return entry
    }

    package func cancel(_ entry: TimerHeap.Entry) {
        let action = lock.withLock { heap.remove(entry) }
        withExtendedLifetime(action) {}  // released outside the lock
    }

    /// Moves time forward by `interval` seconds, running every callback that falls due, in
    /// deadline order. A negative or NaN interval is reported to ``ProcedureMisuse`` and
    /// treated as zero (time never goes backwards).
    public func advance(by interval: TimeInterval) {
        guard interval >= 0 else {
            reportBackwards("advance(by: \(interval))")
            advance(to: now)
            return
        }
        advance(to: now + interval)
    }

    /// Moves time forward to `deadline`, running every callback due by then, in deadline
    /// order, each with ``now`` at its own deadline. A deadline before ``now`` is reported to
    /// ``ProcedureMisuse`` and runs only what is already due.
    public func advance(to deadline: TimeInterval) {
        let start = now
        var target = deadline
        if !(deadline >= start) {
            reportBackwards("advance(to: \(deadline)) while now is \(start)")
            target = start
        }
        while let action = lock.withLock({ () -> (@Sendable () -> Void)? in
            guard let (due, action) = heap.popFirst(dueAt: target) else { return nil }
            time = max(time, due)
            return action
        }) {
            action()
        }
        lock.withLock { time = max(time, target) }
    }

    /// Runs every pending callback, jumping to each deadline in turn, until none is left
    /// (callbacks scheduled by these run too; a callback at an infinite deadline is left
    /// alone). Returns how many ran.
    @discardableResult
    public func runUntilIdle() -> Int {
        var ran = 0
        while let next = nextDeadline, next.isFinite {
            advance(to: max(next, now))
            ran += 1
        }
        return ran
    }

    /// Calls `action` once, as soon as the pending deadlines (earliest first) satisfy
    /// `predicate`: at once if they already do, otherwise on the thread that schedules the
    /// callback that makes them. For tests that must wait for work started by an advance to
    /// schedule its own wait.
    public func whenScheduled(
        _ predicate: @escaping @Sendable (_ deadlines: [TimeInterval]) -> Bool,
        then action: @escaping @Sendable () -> Void
    ) {
        // Registered before the first check, so a callback scheduled meanwhile is not missed.
        lock.withLock {
            watchers[nextWatcherID] = Watcher(predicate: predicate, action: action)
            nextWatcherID += 1
        }
        runSatisfiedWatchers()
    }

    /// Returns once the pending deadlines (earliest first) satisfy `predicate`.
    public func scheduled(_ predicate: @escaping @Sendable (_ deadlines: [TimeInterval]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenScheduled(predicate) { continuation.resume() }
        }
    }

    /// Runs (once each) the watchers whose predicate holds for the pending deadlines. The
    /// predicates are user code: they are evaluated outside the lock, on a snapshot, and a
    /// watcher runs only if this call is the one that removes it.
    private func runSatisfiedWatchers() {
        let (deadlines, candidates) = lock.withLock { (heap.sortedDeadlines, watchers) }
        let satisfied = candidates.filter { $0.value.predicate(deadlines) }.map(\.key)
        guard !satisfied.isEmpty else { return }
        let actions = lock.withLock { satisfied.compactMap { watchers.removeValue(forKey: $0)?.action } }
        for action in actions { action() }
    }

    private func reportBackwards(_ call: String) {
        ProcedureMisuse.report(
            .clockMovedBackwards,
            "ManualClock.\(call): time never goes backwards; only callbacks already due ran. Advance by a positive interval, or to a later time.",
            subject: self)
    }
}
