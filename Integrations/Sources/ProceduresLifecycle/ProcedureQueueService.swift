import Foundation
import Procedures
import ServiceLifecycle

/// A ``Procedures/ProcedureQueue`` that runs as a swift-service-lifecycle `Service`: on graceful
/// shutdown it stops accepting work, lets what it accepted finish, and cancels what is left
/// after a grace period.
///
/// ```swift
/// let jobs = ProcedureQueueService(gracePeriod: 30)
/// let group = ServiceGroup(services: [jobs, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// jobs.queue.addOperation(ReportProcedure())
/// try await group.run()
/// ```
///
/// The ``queue`` runs work as soon as it is added, before ``run()`` too. ``run()`` waits for
/// the graceful shutdown; then, in order:
/// 1. The queue refuses work: an operation added from then on, from outside or produced by
///    the queue's own procedures, is cancelled before it starts (a procedure with
///    ``ProcedureQueueServiceError/shuttingDown``) and never runs. Work that must finish as a
///    whole belongs in a `GroupProcedure`, whose children are its own and are not refused.
/// 2. What it accepted, running or still waiting its turn, carries on; once all of it has
///    finished, ``run()`` returns.
/// 3. If some is still unfinished `gracePeriod` seconds (on `clock`) after the shutdown
///    began, the queue cancels all of it (`cancelAllOperations()`), and ``run()`` returns once
///    it has finished.
///
/// If the task running ``run()`` is cancelled (the service group is going down at once), the
/// queue refuses work, cancels everything and ``run()`` returns without waiting.
///
/// Services of a `ServiceGroup` are shut down in reverse order: list this one before the
/// services that add work to it (an HTTP server, say), so that they have stopped when it
/// drains. A group's `gracefulShutdownTimeout`, if set, also bounds the drain.
public final class ProcedureQueueService: Service, @unchecked Sendable {
    // @unchecked: `phase`, `deadline` and `waiter` are guarded by `lock`; the rest is immutable.

    /// The queue to add work to.
    public var queue: ProcedureQueue { refusingQueue }
    /// How long, from the start of a graceful shutdown, accepted work may take before it is
    /// cancelled.
    public let gracePeriod: TimeInterval
    private let clock: any ProcedureClock
    private let refusingQueue: RefusingQueue
    private let lock = NSLock()
    private var phase = Phase.idle
    private var deadline: (any Cancelable)?
    private var waiter: CheckedContinuation<Void, Never>?

    private enum Phase {
        case idle, running, draining, cancellingLate, finished
    }

    /// A service whose queue's accepted work may take `gracePeriod` seconds on `clock` (a
    /// `ManualClock` in tests) to finish once a graceful shutdown began.
    public init(gracePeriod: TimeInterval = 30, clock: any ProcedureClock = SystemClock.shared) {
        self.gracePeriod = gracePeriod
        self.clock = clock
        refusingQueue = RefusingQueue()
        refusingQueue.name = "ProcedureQueueService"
    }

    /// Runs until a graceful shutdown (or the task's cancellation) and the queue's drain; see
    /// the type's description. Throws ``ProcedureQueueServiceError/alreadyRun`` if called a
    /// second time.
    public func run() async throws {
        let first = lock.withLock { () -> Bool in
            guard case .idle = phase else { return false }
            phase = .running
            return true
        }
        guard first else { throw ProcedureQueueServiceError.alreadyRun }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = lock.withLock { () -> Bool in
                        if case .finished = phase { return true }
                        waiter = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
            } onGracefulShutdown: { [self] in
                beginDraining()
            }
        } onCancel: { [self] in
            stopNow()
        }
    }

    /// Refuses new work, then waits for the accepted work, up to the grace period.
    private func beginDraining() {
        let begins = lock.withLock { () -> Bool in
            guard case .running = phase else { return false }
            phase = .draining
            return true
        }
        guard begins else { return }
        refusingQueue.refuse { [self] in
            // Every add accepted before the refusal has landed: the barrier waits for them all.
            let timer = clock.schedule(after: gracePeriod) { [self] in gracePeriodEnded() }
            let keep = lock.withLock { () -> Bool in
                guard case .draining = phase else { return false }
                deadline = timer
                return true
            }
            if !keep { timer.cancel() }
            refusingQueue.addBarrierBlock { [self] in finish(from: .draining) }
        }
    }

    /// Cancels what is left and waits for it to finish.
    private func gracePeriodEnded() {
        let late = lock.withLock { () -> Bool in
            guard case .draining = phase else { return false }
            phase = .cancellingLate
            deadline = nil
            return true
        }
        guard late else { return }
        // This also cancels the barrier added when the drain began (its block will not run):
        // a new one waits for the cancelled work to finish.
        refusingQueue.cancelAllOperations()
        refusingQueue.addBarrierBlock { [self] in finish(from: .cancellingLate) }
    }

    /// The task was cancelled: refuse, cancel everything, and let `run()` return at once.
    private func stopNow() {
        refusingQueue.refuse {}
        refusingQueue.cancelAllOperations()
        finish(from: nil)
    }

    /// Ends `run()` if the phase is still `expected` (any phase but finished, for nil).
    private func finish(from expected: Phase?) {
        let (ended, timer, continuation) = lock.withLock { () -> (Bool, (any Cancelable)?, CheckedContinuation<Void, Never>?) in
            switch (phase, expected) {
            case (.finished, _): return (false, nil, nil)
            case (.draining, .draining?), (.cancellingLate, .cancellingLate?), (_, nil): break
            default: return (false, nil, nil)
            }
            phase = .finished
            defer {
                deadline = nil
                waiter = nil
            }
            return (true, deadline, waiter)
        }
        guard ended else { return }
        timer?.cancel()
        continuation?.resume()
    }
}

/// Why a ``ProcedureQueueService`` did something other than run the work.
public enum ProcedureQueueServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The procedure was added after the service's graceful shutdown began: it was cancelled
    /// before it started.
    case shuttingDown
    /// ``ProcedureQueueService/run()`` was called a second time.
    case alreadyRun

    /// One line.
    public var description: String {
        switch self {
        case .shuttingDown: return "the queue is shutting down and accepts no more work"
        case .alreadyRun: return "ProcedureQueueService.run() was called a second time"
        }
    }
}
