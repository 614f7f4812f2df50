import XCTest
import ProceduresTesting

final class SmokeTests: XCTestCase {
    func testBlockProcedureRuns() {
        let p = BlockProcedure {}
        wait(for: p)
        assertProcedureFinished(p)
    }

    func testChainOf10000() {
        let queue = ProcedureQueue()
        var procedures: [Procedure] = []
        let order = LockedBox<[Int]>([])
        for i in 0..<10_000 {
            let p = BlockProcedure { order.mutate { $0.append(i) } }
            if let last = procedures.last { p.addDependency(last) }
            procedures.append(p)
        }
        let start = Date()
        let done = expectation(description: "done")
        procedures.last!.addDidFinishBlockObserver { _, _ in done.fulfill() }
        queue.addOperations(procedures, waitUntilFinished: false)
        wait(for: [done], timeout: 60)
        print("chain 10k:", Date().timeIntervalSince(start))
        XCTAssertEqual(order.value, Array(0..<10_000))
    }

    func testGroup() {
        let children = (0..<100).map { _ in TestProcedure() }
        let group = GroupProcedure(operations: children)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertTrue(children.allSatisfy { $0.isFinished && $0.didExecute })
    }

    func testDelayCancel() {
        let delay = DelayProcedure(by: 60)
        let queue = ProcedureQueue()
        let executing = expectation(description: "executing")
        delay.addDidExecuteBlockObserver { _ in executing.fulfill() }
        queue.addOperation(delay)
        wait(for: [executing], timeout: 5)
        delay.cancel()
        wait(for: delay, timeout: 5)
        assertProcedureCancelled(delay)
    }
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func mutate<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&stored) } }
}
