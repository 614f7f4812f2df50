import Foundation
import ProceduresFutures

/// A context that queues work until the test runs it: makes "dispatched but not yet run"
/// deterministic.
final class ManualContext: ExecutionContext, @unchecked Sendable {
    // @unchecked: `work` is only touched under `lock`.
    private let lock = NSLock()
    private var work: [@Sendable () -> Void] = []

    func execute(_ body: @escaping @Sendable () -> Void) { lock.withLock { work.append(body) } }

    func runAll() {
        while let next = lock.withLock({ work.isEmpty ? nil : work.removeFirst() }) { next() }
    }
}
