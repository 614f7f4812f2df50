import ProceduresSupport
/// Collects the values of several futures, under this object's stripe of `StripedLock`.
private final class ValueCollector<T: Sendable>: @unchecked Sendable {
    // @unchecked: `values` and `remaining` are only touched inside `store`, under the stripe.
    private var values: [T?]
    private var remaining: Int

    init(count: Int) {
        values = Array(repeating: nil, count: count)
        remaining = count
    }

    /// Stores one value; returns all of them once the last one arrives.
    func store(_ value: T, at index: Int) -> [T]? {
        StripedLock.withLock(for: self) {
            values[index] = value
            remaining -= 1
            return remaining == 0 ? values.map { $0! } : nil
        }
    }
}

extension Sequence {
    /// A future of all the values, in order, once every future has succeeded.
    ///
    /// Fails (or is cancelled) as soon as any future fails (or is cancelled), and then stops
    /// counting as a consumer of the others. A cancel request on the result is forwarded to
    /// every input (each still subject to its own tree rule). No user code runs, so there is
    /// no context. An empty sequence gives `[]` at once.
    public func sequence<T: Sendable>(cancelToken: CancellationToken? = nil) -> Future<[T]>
    where Element == Future<T> {
        let futures = Array(self)
        if futures.isEmpty { return Future(value: []) }
        if let cancelToken, cancelToken.isCancelled { return Future(result: .cancelled) }
        let target = Future<[T]>()
        let anchor = target.installAnchor()  // inputs reach the result without keeping it alive
        let collector = ValueCollector<T>(count: futures.count)
        target.consumeAll(futures.enumerated().map { index, future in
            (future, { owner in
                let result = unsafeDowncast(owner, to: Future<T>.self).completedResult
                return anchor.withConsumer { target in
                    switch result {
                    case .success(let value):
                        guard let all = collector.store(value, at: index) else { return CallbackList() }
                        return target._complete(.success(all), disposal: .release) ?? CallbackList()
                    case .failure(let error):
                        return target._complete(.failure(error), disposal: .withdraw) ?? CallbackList()
                    case .cancelled:
                        return target._complete(.cancelled, disposal: .withdraw) ?? CallbackList()
                    }
                }
            })
        })
        if let cancelToken { target.bind(to: cancelToken) }
        return target
    }

    /// A future of `combine` folded over the values, in order, once all have succeeded;
    /// fails at the first failure. `combine` runs once, on `context`.
    public func fold<T: Sendable, R: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        initial: R,
        _ combine: @escaping @Sendable (R, T) throws -> R
    ) -> Future<R> where Element == Future<T> {
        sequence(cancelToken: cancelToken).map(context: context, cancelToken: cancelToken) { values in
            try values.reduce(initial, combine)
        }
    }

    /// A future with the result of whichever future completes first (success, failure or
    /// cancellation). It then stops counting as a consumer of the others (it does not cancel
    /// them: they may have other consumers). An empty sequence never completes.
    public func firstCompleted<T: Sendable>(cancelToken: CancellationToken? = nil) -> Future<T>
    where Element == Future<T> {
        let target = Future<T>()
        let anchor = target.installAnchor()
        target.consumeAll(map { future in
            (future, { owner in
                let result = unsafeDowncast(owner, to: Future<T>.self).completedResult
                return anchor.withConsumer { $0._complete(result, disposal: .withdraw) ?? CallbackList() }
            })
        })
        if let cancelToken { target.bind(to: cancelToken) }
        return target
    }
}

extension Sequence where Element: Sendable {
    /// A future of `transform` applied to every element, then ``sequence(cancelToken:)``.
    /// `transform` runs on `context`, once per element, in order.
    public func traverse<T: Sendable>(
        context: (any ExecutionContext)? = nil,
        cancelToken: CancellationToken? = nil,
        _ transform: @escaping @Sendable (Element) throws -> Future<T>
    ) -> Future<[T]> {
        Future(value: Array(self)).flatMap(context: context, cancelToken: cancelToken) { elements in
            try elements.map(transform).sequence()
        }
    }
}
