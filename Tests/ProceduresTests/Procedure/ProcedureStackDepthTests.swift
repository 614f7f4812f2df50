import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// Long chains and deep nesting run in bounded stack: the library never recurses once per
/// procedure, link or level.
final class ProcedureStackDepthTests: MisuseRecordingTestCase {
    /// A chain of any length started by hand (no queue) runs: each link waits for its procedure
    /// dependencies without blocking, and a dependency's finish starts the next link through a
    /// dispatch, not a nested call (20,000 links used to overflow the stack). Runs in a child
    /// process, so that an overflow fails this test instead of killing the run.
    func testLongChainStartedByHandRunsInBoundedStack() {
        guard isChild else {
            assertChildSurvives("testLongChainStartedByHandRunsInBoundedStack")
            return
        }
        let count = 20_000
        var chain: [Procedure] = []
        chain.reserveCapacity(count)
        for index in 0..<count {
            let procedure = BlockProcedure {}
            if index > 0 { procedure.addDependency(chain[index - 1]) }
            chain.append(procedure)
        }
        let done = expectation(description: "last finished")
        chain[count - 1].addDidFinishBlockObserver { _, _ in done.fulfill() }
        for procedure in chain.reversed() { procedure.start() }
        wait(for: [done], timeout: 10)
    }

    /// Nesting depth is bounded only by memory: when the innermost child of 5,000 nested groups
    /// finishes, each group's finish is handled through its mailbox instead of one nested call per
    /// level on a worker's stack (1,000 and 3,000 levels passed before; 5,000 overflowed). Runs in a
    /// child process.
    func testDeeplyNestedGroupsFinishInBoundedStack() {
        guard isChild else {
            assertChildSurvives("testDeeplyNestedGroupsFinishInBoundedStack")
            return
        }
        let depth = 5_000  // 3,000 still passes in a debug build
        var inner: Procedure = BlockProcedure {}
        for _ in 0..<depth { inner = GroupProcedure(operations: [inner]) }
        wait(for: inner, timeout: 20)
    }
}
