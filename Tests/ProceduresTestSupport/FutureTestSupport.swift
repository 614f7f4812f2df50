import Foundation
import ProceduresFutures

/// A thread-safe list of events, for asserting what ran and in which order.
public final class EventLog<Event: Sendable>: Sendable {
    private let events = LockedBox<[Event]>([])

    public init() {}

    public func append(_ event: Event) { events.mutate { $0.append(event) } }

    public var all: [Event] { events.value }

    public var count: Int { all.count }
}

/// A thread-safe counter.
public final class Counter: Sendable {
    public init() {}

    private let count = LockedBox(0)

    @discardableResult
    public func increment() -> Int {
        count.mutate {
            $0 += 1
            return $0
        }
    }

    public var value: Int { count.value }
}

/// A promise whose `onRequestCancel` records each request in `log` and answers `response`.
public func recordingPromise(
    _ log: EventLog<CancelRequestOptions>, response: CancelResponse<Int> = .continue
) -> Promise<Int> {
    let promise = Promise<Int>()
    promise.onRequestCancel { options in
        log.append(options)
        return response
    }
    return promise
}

/// An object to capture in closures and then check, through a weak reference, that it was
/// released.
public final class Tracked: Sendable {
    public init() {}
}

public struct FutureTestError: Error, Equatable {
    public var code = 1

    public init(code: Int = 1) { self.code = code }
}

extension FutureResult {
    /// A comparable description for assertions: "success(1)", "failure(FutureTestError(code: 1))", "cancelled".
    public var summary: String {
        switch self {
        case .success(let value): return "success(\(value))"
        case .failure(let error): return "failure(\(error))"
        case .cancelled: return "cancelled"
        }
    }
}
