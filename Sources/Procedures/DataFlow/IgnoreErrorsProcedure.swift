import Foundation

/// A procedure that runs its operation and succeeds even if the operation fails.
///
/// ```swift
/// let warmCache = IgnoreErrorsProcedure(PrefetchImages(urls))
/// ```
///
/// The operation's errors are dropped (a wrapped ``OutputProcedure`` that failed leaves the
/// ignoring procedure without an output). Cancelling the ignoring procedure itself still
/// finishes it as cancelled, with its own cancel errors.
open class IgnoreErrorsProcedure<Wrapped: Operation>: ComposedProcedure<Wrapped>, @unchecked Sendable {
    // @unchecked: no stored properties of its own.

    /// Drops the errors of the wrapped operation.
    open override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        []
    }
}
