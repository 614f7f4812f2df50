import Foundation
import ProceduresTesting
import XCTest

/// Progress written, read, propagated and observed from many threads at once (dedicated
/// threads, never Dispatch's pool): nothing lost, nothing stale left last, nothing overlapping.
final class ProgressStressTests: XCTestCase {
    func testConcurrentChildUpdatesReadersAndObserversKeepTheGroupConsistent() {
        let rounds = stressIterations(20)
        for _ in 0..<rounds {
            runOneRound(children: 6, updatesPerChild: stressIterations(2000))
        }
    }

    private func runOneRound(children count: Int, updatesPerChild updates: Int) {
        let children = (0..<count).map { _ in SteppedProcedure() }
        let group = GroupProcedure(operations: children)
        for child in children { child.progress.totalUnitCount = Int64(updates) }
        let queue = ProcedureQueue()

        // An observer that checks its calls never overlap and never go backwards.
        let observed = LockedBox<(calls: Int, running: Int, overlapped: Bool, backwards: Bool, last: Double)>(
            (0, 0, false, false, 0))
        let sawFinal = XCTestExpectation(description: "final update")
        group.observeProgress(minimumInterval: 0) { update in
            observed.mutate { state in
                state.calls += 1
                state.running += 1
                if state.running > 1 { state.overlapped = true }
                if update.fractionCompleted < state.last - 1e-9 { state.backwards = true }
                state.last = update.fractionCompleted
            }
            if update.isFinal { sawFinal.fulfill() }
            observed.mutate { $0.running -= 1 }
        }
        queue.addOperation(group)
        for child in children { wait(for: [child.executing], timeout: 10) }

        let writersDone = XCTestExpectation(description: "writers")
        writersDone.expectedFulfillmentCount = count
        let stopReading = LockedBox(false)
        let readersDone = XCTestExpectation(description: "readers")
        readersDone.expectedFulfillmentCount = 2
        let readerSawBackwards = LockedBox(false)

        // One writer per child: its units only go up, so the group's fraction only goes up.
        for child in children {
            Thread {
                let progress = child.progress
                for completed in 1...updates { progress.completedUnitCount = Int64(completed) }
                writersDone.fulfill()
            }.start()
        }
        // Readers: the group's progress, read through both faces, never goes backwards.
        for useFoundation in [false, true] {
            Thread {
                var last = 0.0
                var lastUnits: Int64 = 0
                while !stopReading.value {
                    let fraction = group.currentProgress.fractionCompleted
                    if fraction < last - 1e-9 { readerSawBackwards.mutate { $0 = true } }
                    last = fraction
                    if useFoundation {
                        let units = group.progress.completedUnitCount
                        if units < lastUnits { readerSawBackwards.mutate { $0 = true } }
                        lastUnits = units
                    }
                }
                readersDone.fulfill()
            }.start()
        }
        wait(for: [writersDone], timeout: 60)
        XCTAssertEqual(group.currentProgress.fractionCompleted, 1, accuracy: 1e-9, "every child's units all done")
        for child in children { child.release() }
        wait(for: group, on: queue)
        stopReading.mutate { $0 = true }
        wait(for: [readersDone, sawFinal], timeout: 10)

        let state = observed.value
        XCTAssertFalse(state.overlapped)
        XCTAssertFalse(state.backwards)
        XCTAssertFalse(readerSawBackwards.value)
        XCTAssertEqual(state.last, 1)
        XCTAssertEqual(group.currentProgress.completedUnitCount, Int64(count))
        XCTAssertEqual(group.progress.fractionCompleted, 1)
    }

    func testChildReadFromSeveralThreadsNeverMovesTheGroupBackwards() {
        // A child whose units the library reads from its state (as from a batch's or a
        // delay's) is read, and its change sent up, by whichever thread asks: the group must
        // apply those in the child's order, so that its progress never goes backwards.
        for _ in 0..<stressIterations(20) {
            let children = (0..<2).map { _ in SourcedProcedure(total: 2000) }
            let group = GroupProcedure(operations: children)
            _ = group.currentProgress
            ProcedureQueue().addOperation(group)
            let done = XCTestExpectation(description: "threads")
            done.expectedFulfillmentCount = children.count * 3
            let backwards = LockedBox(false)
            for child in children {
                wait(for: [child.executing], timeout: 10)
                Thread {
                    for _ in 0..<2000 { child.step() }
                    done.fulfill()
                }.start()
                for _ in 0..<2 {
                    Thread {
                        var last = 0.0
                        for _ in 0..<2000 {
                            _ = child.currentProgress  // reads the child's state, sends it up
                            let fraction = group.currentProgress.fractionCompleted
                            if fraction < last - 1e-9 { backwards.mutate { $0 = true } }
                            last = fraction
                        }
                        done.fulfill()
                    }.start()
                }
            }
            wait(for: [done], timeout: 60)
            XCTAssertFalse(backwards.value, "the group's progress went backwards")
            XCTAssertEqual(group.currentProgress.fractionCompleted, 1, accuracy: 1e-9)
            for child in children { child.release() }
            wait(for: group)
        }
    }

    func testProgressAskedForWhileChildrenAreAddedAndFinishCountsEachChildOnce() {
        for _ in 0..<stressIterations(200) {
            let group = GroupProcedure()
            let queue = ProcedureQueue()
            let first = SteppedProcedure()
            group.addChild(first)
            queue.addOperation(group)
            wait(for: [first.executing], timeout: 10)
            let added = XCTestExpectation(description: "children added")
            let asked = XCTestExpectation(description: "progress asked for")
            let childCount = 20
            Thread {
                for _ in 0..<childCount { group.addChild(BlockProcedure {}) }
                added.fulfill()
            }.start()
            Thread {
                _ = group.currentProgress
                asked.fulfill()
            }.start()
            wait(for: [added, asked], timeout: 10)
            XCTAssertEqual(group.progress.totalUnitCount, Int64(childCount + 1))
            first.release()
            wait(for: group, on: queue)
            XCTAssertEqual(group.currentProgress.completedUnitCount, Int64(childCount + 1))
            XCTAssertEqual(group.currentProgress.fractionCompleted, 1)
        }
    }
}

/// A procedure whose progress the library reads from a counter (as it reads a batch's).
final class SourcedProcedure: Procedure, ProgressUnitsSource, @unchecked Sendable {
    // @unchecked: `count` and `running` are locked boxes; `total` is immutable.
    let executing = XCTestExpectation(description: "executing")
    private let count = LockedBox(0)
    private let total: Int64
    private let running = LockedBox<(executing: Bool, released: Bool)>((false, false))

    init(total: Int64) {
        self.total = total
        super.init()
    }

    override func execute() {
        let releasedEarly = running.mutate { state -> Bool in
            state.executing = true
            return state.released
        }
        executing.fulfill()
        if releasedEarly { finish() }
    }

    func step() {
        count.mutate { $0 += 1 }
        progressSourceDidChange()
    }

    func release() {
        let executing = running.mutate { state -> Bool in
            state.released = true
            return state.executing
        }
        if executing { finish() }
    }

    var progressUnits: ProgressUnits { ProgressUnits(completed: Int64(count.value), of: total) }
}
