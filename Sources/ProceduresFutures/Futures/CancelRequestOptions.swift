/// How far a cancel request taken from a future reaches.
///
/// With no options (the default) the request goes to the future the token was taken from and
/// is forwarded up the chain to whichever future is still running, subject to the tree rule:
/// a future shared by several consumers is only asked once every consumer has asked.
public struct CancelRequestOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Ask only the future the token was taken from (its promise's `onRequestCancel`
    /// handlers); do not forward the request to the futures it depends on.
    public static let thisFutureOnly = CancelRequestOptions(rawValue: 1 << 0)

    /// Also complete the future the token was taken from as cancelled at once, without waiting
    /// for its producer to agree. Local: the producer is only *asked* (unless
    /// ``thisFutureOnly``), never forced, and its later result is ignored. The future's own
    /// producer is asked at once, even if other consumers have not asked: none of them can
    /// receive its result any more.
    public static let forceImmediately = CancelRequestOptions(rawValue: 1 << 1)
}

/// A promise's answer to a cancel request, returned from `Promise.onRequestCancel`.
public enum CancelResponse<Value: Sendable>: Sendable {
    /// Keep the future pending; the promise will complete it later (for example once the
    /// wrapped work confirms it stopped, with `promise.cancel()`).
    case `continue`
    /// Complete the future now with this result (`.cancelled`, or a value or error).
    case complete(FutureResult<Value>)
}
