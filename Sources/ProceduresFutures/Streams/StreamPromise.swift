/// The write side of a ``FutureStream``: adds elements and, optionally, finishes it.
///
/// Adding runs (or dispatches) the subscribers' handlers on the calling thread, never under a
/// lock (from inside another stream's handler: right after that handler returns, so chains do
/// not grow the stack); elements added after ``finish()`` are ignored and reported with `false`. A promise
/// that is deallocated finishes its stream.
public final class StreamPromise<Value: Sendable>: Sendable {
    /// The stream this promise feeds.
    public let stream: FutureStream<Value>

    /// Creates a promise whose stream keeps the last `capacity` elements for late subscribers.
    ///
    /// The default, `Int.max`, keeps every element (SimpleFutures' behaviour): choose a bound
    /// for long-lived streams, or `0` to replay nothing.
    public init(capacity: Int = Int.max) {
        stream = FutureStream(capacity: capacity)
    }

    /// Adds a successful element. `false` if the stream has finished.
    @discardableResult
    public func succeed(_ value: Value) -> Bool { stream.add(.success(value)) }

    /// Adds a failed element. `false` if the stream has finished.
    @discardableResult
    public func fail(_ error: any Error) -> Bool { stream.add(.failure(error)) }

    /// Adds an element. `false` if the stream has finished.
    @discardableResult
    public func complete(_ result: FutureResult<Value>) -> Bool { stream.add(result) }

    /// Adds `future`'s result as an element once it completes.
    public func complete(with future: Future<Value>) {
        future.onComplete(context: .immediate) { [stream] in stream.add($0) }
    }

    /// Adds every element of `other` (replayed ones included) as it arrives.
    public func complete(with other: FutureStream<Value>) {
        other.onComplete(context: .immediate) { [stream] in stream.add($0) }
    }

    /// Ends the stream: subscribers' `onFinish` handlers run and async iteration ends.
    /// `false` if it had already finished.
    @discardableResult
    public func finish() -> Bool { stream.finish() }

    deinit {
        // Nothing can add elements any more: end the stream so nobody iterates forever.
        stream.finish()
    }
}
