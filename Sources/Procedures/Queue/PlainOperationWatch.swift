import Foundation
import ProceduresSupport

/// Learns when a plain `Operation` finishes, whoever runs it. corelibs has no KVO; it runs an
/// operation's `completionBlock` once the operation has finished (it reads the block after
/// `isFinished` became true), so the watch chains a block after the user's own one and also
/// checks `isFinished` after installing it: one of the two sees the finish, and a flag makes
/// the callback run exactly once.
enum PlainOperationWatch {
    /// Serialises the read-modify-write of `completionBlock` between watchers of one
    /// operation (a user setting it at the same moment can still replace the chain, as with
    /// any completion block).
    private static let lock = Lock()

    private final class Once: @unchecked Sendable {
        // @unchecked: `body` is guarded by `lock`.
        private let lock = InlineLock()
        private var body: (@Sendable () -> Void)?

        init(_ body: @escaping @Sendable () -> Void) { self.body = body }

        func fire() {
            // Let go of the body once taken: the operation keeps its completion block (and so
            // this) for as long as it lives, and the body usually holds whoever watches it.
            lock.withLock { body.take() }?()
        }
    }

    /// Calls `body` once `operation` has finished: later on another thread, or now if it has.
    static func whenFinished(_ operation: Operation, _ body: @escaping @Sendable () -> Void) {
        let once = Once(body)
        lock.withLock {
            let own = operation.completionBlock
            operation.completionBlock = {
                own?()
                once.fire()
            }
        }
        if operation.isFinished { once.fire() }
    }
}
