import ProceduresSupport
/// Holds one side of a `zip` until the other arrives, under this object's stripe.
private final class PairCollector<A: Sendable, B: Sendable>: @unchecked Sendable {
    // @unchecked: `first` and `second` are only touched under the stripe of `StripedLock`.
    private var first: A?
    private var second: B?

    func storeFirst(_ value: A) -> (A, B)? {
        StripedLock.withLock(for: self) {
            first = value
            return second.map { (value, $0) }
        }
    }

    func storeSecond(_ value: B) -> (A, B)? {
        StripedLock.withLock(for: self) {
            second = value
            return first.map { ($0, value) }
        }
    }
}

extension Future {
    /// A future of both values once both futures have succeeded; fails or is cancelled as
    /// soon as either does. A cancel request on it is forwarded to both.
    public func zip<Other: Sendable>(
        _ other: Future<Other>, cancelToken: CancellationToken? = nil
    ) -> Future<(Value, Other)> {
        if let cancelToken, cancelToken.isCancelled { return Future<(Value, Other)>(result: .cancelled) }
        let target = Future<(Value, Other)>()
        let anchor = target.installAnchor()  // the inputs reach the result without keeping it alive
        let collector = PairCollector<Value, Other>()
        func settle(_ target: Future<(Value, Other)>, _ pair: (Value, Other)?, _ failure: FutureResult<Never>?) -> CallbackList {
            if let pair { return target._complete(.success(pair), disposal: .release) ?? CallbackList() }
            guard let failure else { return CallbackList() }
            return target._complete(failure.retyped(), disposal: .withdraw) ?? CallbackList()
        }
        target.consumeAll([
            (self, { owner in
                let result = unsafeDowncast(owner, to: Future<Value>.self).completedResult
                return anchor.withConsumer { settle($0, result.value.flatMap(collector.storeFirst), result.withoutValue) }
            }),
            (other, { owner in
                let result = unsafeDowncast(owner, to: Future<Other>.self).completedResult
                return anchor.withConsumer { settle($0, result.value.flatMap(collector.storeSecond), result.withoutValue) }
            }),
        ])
        if let cancelToken { target.bind(to: cancelToken) }
        return target
    }
}

/// A future of both values once both have succeeded. See ``Future/zip(_:cancelToken:)``.
public func zip<A: Sendable, B: Sendable>(
    _ first: Future<A>, _ second: Future<B>, cancelToken: CancellationToken? = nil
) -> Future<(A, B)> {
    first.zip(second, cancelToken: cancelToken)
}
