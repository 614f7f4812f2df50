import Foundation

extension ProcedureQueue {
    /// Makes each of `signals` cancel every operation on this queue, as `cancelAllOperations()`
    /// does, instead of its default action: Ctrl-C (SIGINT) or a service manager's SIGTERM
    /// stops the work, which finishes cancelled (processes get SIGTERM, requests are
    /// cancelled), and the program can then exit in its own time.
    ///
    /// ```swift
    /// let queue = ProcedureQueue()
    /// queue.cancelAllOperations(onSignals: [SIGINT, SIGTERM])
    /// try await queue.run(job)   // Ctrl-C: throws CancellationError once the job has stopped
    /// ```
    ///
    /// Call it early, before adding the work a signal should stop: the trap is armed a moment
    /// after the call returns, and a signal arriving in between may be missed. Each signal
    /// cancels what is on the queue when it arrives; one that arrives after the queue was
    /// released does nothing. The returned ``SignalTrap`` undoes it with
    /// ``SignalTrap/remove()``; kept or not, it stays in place until then.
    ///
    /// SIGKILL and SIGSTOP cannot be caught: naming them is reported to ``ProcedureMisuse`` as
    /// ``ProcedureMisuse/Kind/uncatchableSignal``, and they are left out.
    @discardableResult
    public func cancelAllOperations(onSignals signals: [Int32]) -> SignalTrap {
        SignalTrap(signals: signals) { [weak self] in self?.cancelAllOperations() }
    }
}
