import XCTest
import Procedures

final class SmokeTests: XCTestCase {
    func testBlockProcedureRuns() {
        let queue = ProcedureQueue()
        let ran = expectation(description: "ran")
        let p = BlockProcedure { ran.fulfill() }
        queue.addOperation(p)
        wait(for: [ran], timeout: 5)
    }
}
