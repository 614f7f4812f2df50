import ProceduresSupport
/// Holds a closure that may be taken to run once, or discarded first (by a cancelled token).
///
/// Discarding releases the closure, and what it captured, at once rather than when the future
/// completes.
@usableFromInline final class HandlerGate<Body: Sendable>: @unchecked Sendable {
    // @unchecked: `body` is only touched under this object's stripe of `StripedLock`.
    @usableFromInline var body: Body?

    @inlinable init(_ body: Body) {
        self.body = body
    }

    /// The closure, if not yet taken or discarded; afterwards the gate is empty.
    @inlinable func take() -> Body? {
        StripedLock.withLock(for: self) {
            defer { body = nil }
            return body
        }
    }

    /// Discards the closure (released after the lock is dropped).
    @inlinable func close() {
        _ = take()
    }
}
