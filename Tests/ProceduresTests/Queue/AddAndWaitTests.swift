import Foundation
import ProceduresTesting
import XCTest

/// `addOperations(_:waitUntilFinished: true)` returns only once every operation it added has
/// finished (ProcedureKit's ignored the flag), waiting procedures included.
final class AddAndWaitTests: ProcedureTestCase {
    func testReturnsOnlyOnceEveryOperationHasFinished() {
        let queue = ProcedureQueue()
        let slow = TestProcedure(name: "slow", delay: 0.05)
        // Waits for `slow`: held by the queue, not by Foundation, until then.
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(slow)
        // Waits for an asynchronous condition, answered later from another thread.
        let conditional = TestProcedure(name: "conditional")
        conditional.addCondition(BlockCondition { _, completion in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { completion(.satisfied) }
        })
        let plain = BlockOperation {}
        let group = GroupProcedure(operations: [TestProcedure(name: "child", delay: 0.05)])
        let all: [Operation] = [dependent, conditional, plain, group, slow]
        queue.addOperations(all, waitUntilFinished: true)
        for operation in all {
            XCTAssertTrue(operation.isFinished, "\(operation.name ?? "\(operation)") had not finished")
        }
        XCTAssertTrue(dependent.didExecute && conditional.didExecute)
    }

    func testReturnsForCancelledOperationsToo() {
        let queue = ProcedureQueue()
        let gate = makeGate()
        let waiting = TestProcedure(name: "waiting")
        waiting.addDependency(gate)
        waiting.cancel()
        gate.cancel()
        queue.addOperations([waiting, gate], waitUntilFinished: true)
        XCTAssertTrue(waiting.isFinished && gate.isFinished)
    }
}
