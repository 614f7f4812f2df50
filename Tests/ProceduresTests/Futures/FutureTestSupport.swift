import Foundation
@testable import Procedures

/// A thread-safe list of events, for asserting what ran and in which order.
final class EventLog<Event: Sendable>: Sendable {
    private let events = LockedBox<[Event]>([])

    func append(_ event: Event) { events.mutate { $0.append(event) } }

    var all: [Event] { events.value }

    var count: Int { all.count }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = LockedBox(0)

    @discardableResult
    func increment() -> Int {
        count.mutate {
            $0 += 1
            return $0
        }
    }

    var value: Int { count.value }
}

/// A promise whose `onRequestCancel` records each request in `log` and answers `response`.
func recordingPromise(
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
final class Tracked: Sendable {}

struct FutureTestError: Error, Equatable {
    var code = 1
}

extension FutureResult {
    /// A comparable description for assertions: "success(1)", "failure(FutureTestError(code: 1))", "cancelled".
    var summary: String {
        switch self {
        case .success(let value): return "success(\(value))"
        case .failure(let error): return "failure(\(error))"
        case .cancelled: return "cancelled"
        }
    }
}
