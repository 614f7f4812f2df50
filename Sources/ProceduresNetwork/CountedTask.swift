import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// One task of a ``ProgressReportingSession``: the `URLSessionTask` and its byte count.
final class CountedTask: NetworkTask, @unchecked Sendable {
    // @unchecked: `units` is guarded by `lock`; `task` is immutable (and thread-safe).
    private let task: URLSessionTask
    private let lock = NSLock()
    private var units: ProgressUnits

    init(_ task: URLSessionTask, expected: Int64) {
        self.task = task
        units = ProgressUnits(completed: 0, of: expected)
    }

    func resume() { task.resume() }
    func cancel() { task.cancel() }

    var transferProgress: ProgressUnits? { lock.withLock { units } }

    func count(_ completed: Int64, of expected: Int64?) {
        lock.withLock {
            units.completed = completed
            if let expected { units.total = expected }
        }
    }
}
