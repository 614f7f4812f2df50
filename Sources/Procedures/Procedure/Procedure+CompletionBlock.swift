import Foundation

extension Procedure {
    /// Runs `block` once the procedure has finished, however it finished (cancelled, failed or
    /// not), after its did-finish observers added before.
    ///
    /// Add as many as you like; they run one at a time, in the order added. None of them
    /// touches `completionBlock`, which stays yours: it runs as well, when Foundation runs it.
    /// A block added after the procedure finished runs once, at once (or right after the
    /// procedure's last callbacks, if they are still running).
    ///
    /// ```swift
    /// upload.addCompletionBlock { progress.finishOne() }
    /// upload.addCompletionBlock { log.info("upload done") }
    /// ```
    ///
    /// It is a did-finish observer that ignores its arguments (ProcedureKit chained the blocks
    /// in `completionBlock`); add one with ``ObservableProcedure/addDidFinishBlockObserver(_:)``
    /// to learn the procedure's errors.
    public func addCompletionBlock(_ block: @escaping @Sendable () -> Void) {
        addDidFinishBlockObserver { _, _ in block() }
    }
}
