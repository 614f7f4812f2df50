import Foundation
import ProceduresTesting
import XCTest

/// `BlockProcedure`: synchronous, throwing and asynchronous blocks; never runs when cancelled
/// before it starts.
final class BlockProcedureTests: CoreTestCase {
    func testSynchronousBlockRunsOnceAndFinishes() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure { runs.mutate { $0 += 1 } }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(runs.value, 1)
    }

    func testThrowingBlockFinishesWithTheError() {
        let error = TestError("thrown")
        let procedure = BlockProcedure { throw error }
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(coreErrors(procedure.errors, equal: [error]))
    }

    func testAsynchronousBlockFinishesWhenItSaysSo() {
        let events = LockedBox<[String]>([])
        let procedure = BlockProcedure(asyncBlock: { procedure in
            events.mutate { $0.append("block") }
            DispatchQueue.global().async {
                events.mutate { $0.append("work done") }
                procedure.finish()
            }
        })
        procedure.addDidExecuteBlockObserver { procedure in
            events.mutate { $0.append("did execute finished=\(procedure.isFinished)") }
        }
        procedure.addDidFinishBlockObserver { _, _ in events.mutate { $0.append("did finish") } }
        wait(for: procedure)
        assertProcedureFinished(procedure)
        let log = events.value
        XCTAssertEqual(log.first, "block")
        XCTAssertEqual(log.last, "did finish")
        XCTAssertTrue(log.contains("work done"))
        XCTAssertFalse(log.contains("did execute finished=true"), "it did not finish when the block returned: \(log)")
    }

    func testAsynchronousBlockCanFinishWithAnError() {
        let error = TestError("async")
        let procedure = BlockProcedure(asyncBlock: { procedure in
            DispatchQueue.global().async { procedure.finish(withError: error) }
        })
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertTrue(coreErrors(procedure.errors, equal: [error]))
    }

    func testAsynchronousBlockReceivesItsOwnProcedure() {
        let same = LockedBox<Bool?>(nil)
        let holder = LockedBox<BlockProcedure?>(nil)
        let procedure = BlockProcedure(asyncBlock: { procedure in
            same.mutate { $0 = procedure === holder.value }
            procedure.finish()
        })
        holder.mutate { $0 = procedure }
        wait(for: procedure)
        XCTAssertEqual(same.value, true)
        holder.mutate { $0 = nil }
    }

    func testCancelledBeforeRunningNeverRunsItsBlock() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure { runs.mutate { $0 += 1 } }
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(runs.value, 0)
    }

    func testCancelledAsyncFormBeforeRunningNeverRunsItsBlock() {
        let runs = LockedBox(0)
        let procedure = BlockProcedure(asyncBlock: { procedure in
            runs.mutate { $0 += 1 }
            procedure.finish()
        })
        let gate = makeGate()
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        procedure.cancel()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertEqual(runs.value, 0)
        gate.finish()
        wait(for: gate)
    }

    func testAsyncBlockThatIgnoresCancelStaysExecutingUntilItFinishes() {
        // Cancelling only delivers the request: an async block that does not react keeps
        // running until it calls finish.
        let started = expectation(description: "block ran")
        let procedure = BlockProcedure(asyncBlock: { _ in started.fulfill() })
        let cancelled = expectation(description: "did cancel")
        procedure.addDidCancelBlockObserver { _, _ in cancelled.fulfill() }
        ProcedureQueue().addOperation(procedure)
        wait(for: [started], timeout: 10)
        procedure.cancel()
        wait(for: [cancelled], timeout: 10)
        XCTAssertFalse(procedure.isFinished)
        procedure.finish()
        wait(for: procedure)
        assertProcedureCancelled(procedure)
    }
}
