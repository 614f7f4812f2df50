import Foundation
import Procedures
import ProceduresSupport

/// A one-shot signal an `async` test awaits with a timeout, on the library's own clock: no
/// thread is blocked and nothing sleeps. Whichever comes first (the signal, the timeout, or
/// the awaiting task's cancellation) decides the outcome; the others are ignored.
package final class TimedSignal: Sendable {
    /// How a wait ended.
    package enum Outcome: Sendable {
        case signalled, timedOut, cancelled
    }

    private struct State {
        var outcome: Outcome?
        var continuation: CheckedContinuation<Outcome, Never>?
        var timer: (any Cancelable)?
    }

    // A pthread mutex, not `Mutex`, whose futex ThreadSanitizer does not see.
    private let state = LockedValue(State())

    package init() {}

    /// Ends the wait (or the wait to come) as signalled, unless it has ended already.
    package func signal() { end(.signalled) }

    /// Returns once signalled, or `timeout` seconds of `clock` later, or once the calling task
    /// is cancelled. Await it once.
    package func wait(timeout: TimeInterval, clock: any ProcedureClock = SystemClock.shared) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let ended = state.withLock { state -> Outcome? in
                    if let outcome = state.outcome { return outcome }
                    state.continuation = continuation
                    return nil
                }
                if let ended { return continuation.resume(returning: ended) }
                let timer = clock.schedule(after: timeout) { [self] in end(.timedOut) }
                // The wait may have ended while the timer was being armed: then it goes at once.
                let keep = state.withLock { state -> Bool in
                    guard state.outcome == nil else { return false }
                    state.timer = timer
                    return true
                }
                if !keep { timer.cancel() }
            }
        } onCancel: {
            end(.cancelled)
        }
    }

    private func end(_ outcome: Outcome) {
        let (continuation, timer) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, (any Cancelable)?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            defer { state.continuation = nil; state.timer = nil }
            return (state.continuation, state.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: outcome)
    }
}
