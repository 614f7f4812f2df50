import Foundation
@testable import Procedures

/// A thread-safe list of events, for asserting what ran and in which order.
final class EventLog<Event: Sendable>: @unchecked Sendable {
    // @unchecked: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [Event] = []

    func append(_ event: Event) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [Event] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    var count: Int { all.count }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
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
