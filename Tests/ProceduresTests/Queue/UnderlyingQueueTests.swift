import Foundation
import ProceduresTesting
import XCTest

/// A ProcedureQueue runs its procedures whatever `underlyingQueue` it is given.
final class UnderlyingQueueTests: ProcedureTestCase {
    /// A ProcedureQueue whose `underlyingQueue` is `DispatchQueue.main` runs its procedures (XCTest's
    /// `wait` services the main queue). corelibs' `OperationQueue.current` answers `.main` for any
    /// code on the main thread, so the queue's own start must not be taken for a start by hand.
    func testProceduresRunOnAQueueWhoseUnderlyingQueueIsMain() {
        let queue = ProcedureQueue()
        queue.underlyingQueue = DispatchQueue.main
        let plainRan = expectation(description: "plain BlockOperation ran on the same queue")
        queue.addOperation { plainRan.fulfill() }
        wait(for: [plainRan], timeout: 5)

        let procedure = TestProcedure(name: "on main")
        queue.addOperation(procedure)
        wait(for: procedure, timeout: 10)
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }
}

extension UnderlyingQueueTests {
    func testUnderlyingQueueRunsTheProcedures() {
        let key = DispatchSpecificKey<String>()
        let underlying = DispatchQueue(label: "tests.underlying")
        underlying.setSpecific(key: key, value: "underlying")
        let queue = ProcedureQueue()
        queue.underlyingQueue = underlying
        XCTAssertTrue(queue.underlyingQueue === underlying)

        let seen = LockedBox<[String?]>([])
        let procedures = (0..<5).map { _ in
            BlockProcedure { seen.mutate { $0.append(DispatchQueue.getSpecific(key: key)) } }
        }
        let chained = BlockProcedure { seen.mutate { $0.append(DispatchQueue.getSpecific(key: key)) } }
        chained.addDependencies(procedures)
        wait(forAll: procedures + [chained], on: queue)
        XCTAssertEqual(seen.value, Array(repeating: "underlying", count: 6))
    }
}
