import Foundation
import Procedures

/// The queue of a ``ProcedureQueueService``: once told to refuse, it cancels every operation
/// added to it before the operation can start.
///
/// An add that had already been accepted when the refusal came lands first: `refuse(then:)`
/// calls its closure only once the last of them is in the queue, so that a barrier added
/// there waits for everything accepted.
class RefusingQueue: ProcedureQueue, @unchecked Sendable {
    // @unchecked: `refusing`, `adding` and `whenLanded` are guarded by `refusalLock`; the
    // rest is ProcedureQueue's.
    private let refusalLock = NSLock()
    private var refusing = false
    /// Accepted adds that have not landed in the queue yet.
    private var adding = 0
    private var whenLanded: [@Sendable () -> Void] = []

    override func addOperation(_ operation: Operation) {
        let refused = refusalLock.withLock { () -> Bool in
            if refusing { return true }
            adding += 1
            return false
        }
        guard !refused else {
            // Added all the same, cancelled: it finishes at once and whoever waits for it
            // (its observers, `queue.run(_:)`) hears why.
            if let procedure = operation as? Procedure {
                procedure.cancel(withError: ProcedureQueueServiceError.shuttingDown)
            } else {
                operation.cancel()
            }
            super.addOperation(operation)
            return
        }
        land(operation)
        let landed = refusalLock.withLock { () -> [@Sendable () -> Void] in
            adding -= 1
            guard refusing, adding == 0 else { return [] }
            defer { whenLanded = [] }
            return whenLanded
        }
        for action in landed { action() }
    }

    /// Hands an accepted operation to the queue. (Not final: a test holds an add here, to
    /// check that a refusal waits for it.)
    func land(_ operation: Operation) {
        super.addOperation(operation)
    }

    /// Refuses every operation added from now on, and calls `action` once every add accepted
    /// before has landed in the queue (at once if none is in progress).
    func refuse(then action: @escaping @Sendable () -> Void) {
        let now = refusalLock.withLock { () -> Bool in
            refusing = true
            if adding == 0 { return true }
            whenLanded.append(action)
            return false
        }
        if now { action() }
    }
}
