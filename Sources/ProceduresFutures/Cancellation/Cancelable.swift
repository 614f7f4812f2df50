/// Anything whose work can be asked to stop.
///
/// ``CancellationToken/register(_:)`` holds a `Cancelable` weakly and calls ``cancel()`` once
/// when the token is cancelled, so a worker can hand over a task object without writing a
/// handler and without keeping the task alive longer than its owner does.
///
/// ```swift
/// final class Download: Cancelable {
///     func cancel() { /* stop the transfer */ }
/// }
/// request.token.register(download)
/// ```
public protocol Cancelable: AnyObject, Sendable {
    /// Asks the receiver to stop. Called at most once by a token, on the thread that cancels.
    func cancel()
}
