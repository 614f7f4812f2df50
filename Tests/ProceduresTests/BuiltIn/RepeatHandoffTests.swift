import Foundation
import Procedures
import ProceduresTestSupport
import XCTest

/// A repeat's operation that finishes inside its run on the drain loop of the repeat's own
/// scheduler leaves the next operation to that loop; whatever user code the repeat runs on
/// that thread before the loop's next step (its observers, its hooks, its other callbacks)
/// cannot keep the next operation from starting.
final class RepeatHandoffTests: XCTestCase {
    private let patience: TimeInterval = 10

    func testTheNextAttemptStartsWhileADidAddObserverOfTheRetryHoldsTheThread() {
        let secondRan = ArrivalCount()
        var attempts = 0
        let retry = RetryProcedure(maxAttempts: 2) { () -> BlockProcedure in
            attempts += 1
            return attempts == 1 ? BlockProcedure { throw HandoffTestError() } : BlockProcedure { secondRan.arrive() }
        }
        let added = LockedBox(0)
        let sawSecondRun = LockedBox<Bool?>(nil)
        retry.addDidAddOperationBlockObserver { [patience] _, _ in
            // The second addition is the second attempt: the observer holds this thread, the
            // thread of the loop that ran the first attempt, until the second has run.
            guard added.mutate({ $0 += 1; return $0 }) == 2 else { return }
            sawSecondRun.mutate { $0 = secondRan.wait(for: 1, seconds: patience) }
        }
        let finished = ArrivalCount()
        retry.addDidFinishBlockObserver { _, _ in finished.arrive() }
        ProcedureQueue().addOperation(retry)
        XCTAssertTrue(finished.wait(for: 1, seconds: patience * 2))
        XCTAssertEqual(sawSecondRun.value, true, "the observer held the thread of the loop the second attempt was left to, and it ran")
        XCTAssertTrue(retry.errors.isEmpty, "\(retry.errors)")
    }

    func testTheNextOperationStartsWhileTheRepeatsTransformChildErrorsHoldsTheThread() {
        // A repeat keeps every operation's errors: they pass through transformChildErrors.
        let secondRan = ArrivalCount()
        let first = BlockProcedure { throw HandoffTestError() }
        let second = BlockProcedure { secondRan.arrive() }
        let repeated = WaitingRepeat(operations: [first, second], waitingAfter: first, for: secondRan, patience: patience)
        let finished = ArrivalCount()
        repeated.addDidFinishBlockObserver { _, _ in finished.arrive() }
        ProcedureQueue().addOperation(repeated)
        XCTAssertTrue(finished.wait(for: 1, seconds: patience * 2))
        XCTAssertEqual(repeated.sawSecondRun.value, true)
        XCTAssertEqual(repeated.errors.count, 1, "\(repeated.errors)")
    }
}

private struct HandoffTestError: Error {}

private final class WaitingRepeat: RepeatProcedure<BlockProcedure>, @unchecked Sendable {
    // @unchecked: every stored property is immutable or a locked box.
    let first: Procedure
    let secondRan: ArrivalCount
    let patience: TimeInterval
    let sawSecondRun = LockedBox<Bool?>(nil)

    init(operations: [BlockProcedure], waitingAfter first: Procedure, for secondRan: ArrivalCount, patience: TimeInterval) {
        (self.first, self.secondRan, self.patience) = (first, secondRan, patience)
        var remaining = operations[...]
        super.init(next: { remaining.popFirst().map { RepeatProcedurePayload(operation: $0) } })
    }

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        if child === first { sawSecondRun.mutate { $0 = secondRan.wait(for: 1, seconds: patience) } }
        return errors
    }
}
