import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

@testable import Procedures

/// A queue leaves the release of a finished procedure to the next thread that adds one (so its
/// memory goes back to the thread that allocated it), but never lets finished procedures
/// linger: they are released once the queue is idle, or once enough of them wait.
final class FinishedProcedureReleaseTests: ProcedureTestCase {
    /// Counts its deinits and remembers the thread of the last one.
    private final class Releases: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var thread: pthread_t?
        private let reached: (count: Int, expectation: XCTestExpectation)?

        init(fulfilling expectation: XCTestExpectation? = nil, at count: Int = 1) {
            reached = expectation.map { (count, $0) }
        }

        func record() {
            let total = lock.withLock { () -> Int in
                count += 1
                thread = pthread_self()
                return count
            }
            if let reached, total == reached.count { reached.expectation.fulfill() }
        }

        var snapshot: (count: Int, thread: pthread_t?) { lock.withLock { (count, thread) } }
    }

    /// Records its deinit in `releases`, and its execution in `executed` if given.
    private final class Tracked: Procedure, @unchecked Sendable {
        let releases: Releases
        let executed: Counter?
        init(_ releases: Releases, executed: Counter? = nil) {
            self.releases = releases
            self.executed = executed
            super.init()
        }
        override func execute() {
            executed?.increment()
            finish()
        }
        deinit { releases.record() }
    }

    /// Fulfils an expectation when a given procedure has finished and left the queue.
    private final class FinishWatcher: ProcedureQueueDelegate, @unchecked Sendable {
        weak var watched: Procedure?
        let left: XCTestExpectation
        init(_ left: XCTestExpectation) { self.left = left }
        func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
            if procedure === watched { left.fulfill() }
        }
    }

    func testAFinishedProcedureIsReleasedByTheThreadThatAddsTheNextOne() {
        // Drain loops run on a serial queue, so the test can wait until none still holds the
        // finished procedure; the gate keeps the queue from becoming idle.
        let loops = DispatchQueue(label: "loops")
        let queue = ProcedureQueue()
        queue.underlyingQueue = loops
        let gate = makeGate()
        queue.addOperation(gate)
        let releases = Releases()
        let left = expectation(description: "finished and left the queue")
        let watcher = FinishWatcher(left)
        queue.delegate = watcher
        do {
            let finished = Tracked(releases)
            watcher.watched = finished
            queue.addOperation(finished)
        }
        wait(for: [left], timeout: 10)
        loops.sync {}  // the loop that ran it has returned
        XCTAssertEqual(releases.snapshot.count, 0, "released before another procedure was added")

        queue.addOperation(BlockProcedure {})
        let after = releases.snapshot
        XCTAssertEqual(after.count, 1, "not released by the add that followed its finish")
        XCTAssertTrue(after.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false, "released on another thread")
        gate.finish()
        wait(for: gate)
    }

    func testFinishedProceduresAreReleasedOnceTheQueueIsIdle() {
        let queue = ProcedureQueue()
        let released = expectation(description: "all released")
        let releases = Releases(fulfilling: released, at: 20)
        for _ in 0..<20 { queue.addOperation(Tracked(releases)) }
        // Nothing is added after them: the thread that empties the queue releases them.
        wait(for: [released], timeout: 10)
        XCTAssertEqual(releases.snapshot.count, 20)
    }

    func testFinishedProceduresDoNotWaitForAnAddBeyondALimit() {
        let queue = ProcedureQueue()
        let running = makeGate("running")  // keeps the queue from becoming idle
        let start = makeGate("start")
        queue.addOperation(running)
        queue.addOperation(start)
        let count = 4 * ProcedureQueue.unreleasedLimit
        // Fewer than the limit may still wait when the last one has finished.
        let atLeast = count - ProcedureQueue.unreleasedLimit
        let mostReleased = expectation(description: "most released while the queue is busy")
        let releases = Releases(fulfilling: mostReleased, at: atLeast)
        for _ in 0..<count {
            let procedure = Tracked(releases)
            procedure.addDependency(start)
            queue.addOperation(procedure)
        }
        // They all finish after the last add, while `running` keeps the queue busy: no add and
        // no idle queue releases them, only the limit does.
        start.finish()
        wait(for: [mostReleased], timeout: 10)

        running.finish()
        // Idle now: the thread that emptied the queue releases the rest.
        let idle = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in releases.snapshot.count == count }, object: nil)
        wait(for: [idle], timeout: 10)
    }

    /// Two threads add while the queue's workers finish and release: every procedure runs
    /// once and is released once, whichever thread releases it, and none is left behind.
    func testThreadsAddingWhileProceduresFinishReleaseEachProcedureOnce() {
        let rounds = stressIterations(200)
        let perThread = 50
        let queue = ProcedureQueue()
        let releases = Releases()
        let executed = Counter()
        for _ in 0..<rounds {
            ThreadRace.run(
                skew: Int.random(in: 0..<32),
                { for _ in 0..<perThread { queue.addOperation(Tracked(releases, executed: executed)) } },
                { for _ in 0..<perThread { queue.addOperation(Tracked(releases, executed: executed)) } })
        }
        let total = rounds * 2 * perThread
        let allReleased = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in releases.snapshot.count == total }, object: nil)
        wait(for: [allReleased], timeout: 30)
        XCTAssertEqual(releases.snapshot.count, total)
        XCTAssertEqual(executed.value, total)
        XCTAssertEqual(queue.unfinishedOperationCount, 0)
    }
}
