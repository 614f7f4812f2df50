extension FutureStream {
    /// The stream's elements as an `AsyncSequence`, replayed ones first; iteration ends when
    /// the stream finishes.
    ///
    /// Buffering: elements arrive whether or not the loop is ready for them, so they are
    /// buffered per iterator according to `bufferingPolicy` (default `.unbounded`; use
    /// `.bufferingNewest(n)` to keep only the latest). Ending the loop (or cancelling its
    /// Task) unsubscribes.
    ///
    /// ```swift
    /// for await result in stream.results() { … }
    /// ```
    public func results(
        bufferingPolicy: AsyncStream<FutureResult<Value>>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<FutureResult<Value>> {
        AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            let subscription = StreamSubscription<Value>(
                context: .immediate,
                onElement: { continuation.yield($0) },
                onFinish: { continuation.finish() })
            continuation.onTermination = { [weak self] _ in
                subscription.cancel()
                self?.unsubscribe(subscription)
            }
            subscribe(subscription, cancelToken: nil)
        }
    }

    /// The stream's values as an `AsyncThrowingSequence` that throws at the first failed
    /// element (`CancellationError` for a cancelled one) and ends when the stream finishes.
    /// Buffering as for ``results(bufferingPolicy:)``.
    public func values(
        bufferingPolicy: AsyncThrowingStream<Value, any Error>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncThrowingStream<Value, any Error> {
        AsyncThrowingStream(bufferingPolicy: bufferingPolicy) { continuation in
            let subscription = StreamSubscription<Value>(
                context: .immediate,
                onElement: { result in
                    switch result {
                    case .success(let value): continuation.yield(value)
                    case .failure(let error): continuation.finish(throwing: error)
                    case .cancelled: continuation.finish(throwing: CancellationError())
                    }
                },
                onFinish: { continuation.finish() })
            continuation.onTermination = { [weak self] _ in
                subscription.cancel()
                self?.unsubscribe(subscription)
            }
            subscribe(subscription, cancelToken: nil)
        }
    }
}
