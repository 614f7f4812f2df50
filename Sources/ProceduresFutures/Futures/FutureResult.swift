/// How a future ended: with a value, with an error, or cancelled.
public enum FutureResult<Value: Sendable>: Sendable {
    /// The work produced a value.
    case success(Value)
    /// The work failed.
    case failure(any Error)
    /// The work was cancelled: there is neither a value nor an error.
    case cancelled

    /// The value, or throws: the error for `.failure`, `CancellationError()` for `.cancelled`.
    @inlinable public func get() throws -> Value {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    /// The value of a `.success`, otherwise `nil`.
    @inlinable public var value: Value? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error of a `.failure`, otherwise `nil`.
    @inlinable public var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// Whether this is `.cancelled`.
    @inlinable public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// The same failure or cancellation for another value type; `nil` for a success.
    @inlinable var withoutValue: FutureResult<Never>? {
        switch self {
        case .success: return nil
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }
}

extension FutureResult where Value == Never {
    /// Re-types a failure or cancellation (a `Never` result cannot be a success).
    @inlinable func retyped<T: Sendable>(as _: T.Type = T.self) -> FutureResult<T> {
        switch self {
        case .failure(let error): return .failure(error)
        default: return .cancelled
        }
    }
}

/// Errors this layer produces itself.
public enum FutureError: Error, Equatable, Sendable {
    /// `withFilter`'s predicate rejected the value.
    case noSuchElement
    /// The promise was deallocated without completing its future, so it never could.
    case brokenPromise
    /// A completion-handler API called back with neither a value nor an error.
    case missingValue
    /// A promise was completed with its own future, which could never complete.
    case cyclicCompletion
}
