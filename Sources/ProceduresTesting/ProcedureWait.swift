import Foundation
import Procedures
import Synchronization

/// The start of every wait for procedures, whichever framework waits: a did-finish observer
/// on each procedure that counts down to one call of `allFinished`, and an add to a queue for
/// those not on one yet. The framework's own wait (an `XCTestExpectation`, a ``TimedSignal``)
/// does the rest, and ``WaitTimeoutMessage`` says what went wrong.
package enum ProcedureWait {
    /// Calls `allFinished` once every one of `procedures` has finished and run the did-finish
    /// observers it has now (at once for none), and adds those not on a queue to `queue`, or
    /// to a new ``ProcedureQueue``.
    ///
    /// Whether a procedure is on a queue is read once, here: a procedure another thread is
    /// adding meanwhile is added twice, and the second add is reported as misuse.
    package static func start(
        _ procedures: [Procedure], on queue: ProcedureQueue?, allFinished: @escaping @Sendable () -> Void
    ) {
        guard !procedures.isEmpty else { return allFinished() }
        let countdown = Countdown(procedures.count)
        for procedure in procedures {
            procedure.addDidFinishBlockObserver { _, _ in
                if countdown.tick() { allFinished() }
            }
        }
        let notEnqueued = procedures.filter { !$0.isEnqueued }
        if !notEnqueued.isEmpty {
            (queue ?? ProcedureQueue()).addOperations(notEnqueued, waitUntilFinished: false)
        }
    }

    /// Counts finishes; true for the one that brings it to zero.
    private final class Countdown: Sendable {
        private let remaining: Atomic<Int>

        init(_ count: Int) { remaining = Atomic(count) }

        func tick() -> Bool { remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }
    }
}
