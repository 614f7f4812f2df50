import Foundation
import ProceduresTesting
import XCTest

/// Partial outputs of procedures that were cancelled, beside the three-way outcome of their
/// futures (`await future.outcome`).
final class PartialOutputTests: XCTestCase {
    func testACancelledBatchKeepsItsPartialOutputBesideACancelledFuture() async {
        let box = LockedBox<BatchProcedure<Int, Int>?>(nil)
        let batch = BatchProcedure(input: Array(0..<50), width: 1) { (x: Int) -> Int in
            if x == 5 { box.value?.cancel() }
            return x
        }
        box.mutate { $0 = batch }
        let outcome = await ProcedureQueue().future(batch).outcome
        XCTAssertTrue(outcome.isCancelled)
        let done = batch.partialOutput?.compactMap { $0 }
        XCTAssertEqual(done, [0, 1, 2, 3, 4])
    }
}
