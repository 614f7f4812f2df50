import Foundation

/// Suspends until the current task is cancelled, holding no thread meanwhile. (A loop of
/// `Task.yield()` would keep one of the cooperative pool's few threads busy, and that pool is
/// Dispatch's on Linux.)
func suspendUntilTaskIsCancelled() async {
    let waiter = CancellationWaiter()
    await withTaskCancellationHandler {
        await withCheckedContinuation { waiter.park($0) }
    } onCancel: {
        waiter.cancel()
    }
}

/// A parked continuation and whether the cancel came first (it may come before the park).
private final class CancellationWaiter: @unchecked Sendable {
    // @unchecked: both fields are only touched under `lock`; the continuation is resumed outside it.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var cancelled = false

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = lock.withLock { () -> Bool in
            if cancelled { return true }
            self.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func cancel() {
        let parked = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            cancelled = true
            defer { continuation = nil }
            return continuation
        }
        parked?.resume()
    }
}
