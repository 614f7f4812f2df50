import Foundation
import ProceduresTesting
import XCTest

/// Finished procedures are released: nothing in the library keeps them (or their observers)
/// alive once they and their dependents have finished.
final class DeallocationTests: CoreTestCase {
    private final class WeakBox: @unchecked Sendable {
        weak var procedure: Procedure?
        init(_ procedure: Procedure) { self.procedure = procedure }
    }

    func testFinishedChainAndItsObserversAreReleased() {
        let queue = ProcedureQueue()
        var boxes: [WeakBox] = []
        do {
            var procedures: [Procedure] = []
            for index in 0..<100 {
                let procedure = TestProcedure(name: "p\(index)")
                // An observer capturing the procedure strongly: released at finish.
                procedure.addDidFinishBlockObserver { _, _ in _ = procedure.name }
                if let previous = procedures.last { procedure.addDependency(previous) }
                procedures.append(procedure)
            }
            let cancelled = TestProcedure(name: "cancelled")
            cancelled.cancel()
            procedures.append(cancelled)
            boxes = procedures.map(WeakBox.init)
            wait(forAll: procedures, on: queue)
        }
        // The thread that finished the last procedures may still be returning from the
        // library's callbacks (holding them) when wait(for:) returns: poll until released.
        let finalBoxes = boxes
        let released = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in finalBoxes.allSatisfy { $0.procedure == nil } }, object: nil)
        let result = XCTWaiter().wait(for: [released], timeout: 10)
        let alive = boxes.compactMap { $0.procedure?.name }
        XCTAssertEqual(result, .completed)
        XCTAssertEqual(alive, [], "still alive 10 s after finishing")
    }
}
