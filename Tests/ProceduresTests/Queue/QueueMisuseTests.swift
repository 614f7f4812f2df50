import Foundation
import ProceduresTesting
import XCTest

/// Adding procedures wrongly, bad dependencies and dependency cycles: each ignored (or, for a
/// cycle, resolved by cancelling) and reported, never a hang.
final class QueueMisuseTests: ProcedureTestCase {
    // MARK: - Adding

    func testAddingTwiceToOneQueueIsReportedAndRunsOnce() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure(name: "twice")
        queue.addOperation(procedure)
        queue.addOperation(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.addedTwice])

        queue.isSuspended = false
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.executeCount, 1)
    }

    func testAddingToASecondQueueIsReportedAndRunsOnceOnTheFirst() {
        let first = ProcedureQueue()
        first.isSuspended = true
        let second = ProcedureQueue()
        let procedure = TestProcedure(name: "two queues")
        let firstKey = DispatchSpecificKey<String>()
        let underlying = DispatchQueue(label: "first queue")
        underlying.setSpecific(key: firstKey, value: "first")
        first.underlyingQueue = underlying
        let ranOn = LockedBox<String?>(nil)
        procedure.addWillExecuteBlockObserver { _ in ranOn.mutate { $0 = DispatchQueue.getSpecific(key: firstKey) } }

        first.addOperation(procedure)
        second.addOperation(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.addedToSecondQueue])

        first.isSuspended = false
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertEqual(ranOn.value, "first")
    }

    /// Two threads adding one procedure to two queues at once: exactly one queue adopts it,
    /// it runs once, the other add is reported, and neither queue keeps it after it finished.
    func testTwoQueuesRacingToAddOneProcedureAdoptItOnceAndReportTheOther() {
        let iterations = stressIterations(2_000)
        let first = ProcedureQueue()
        let second = ProcedureQueue()
        var procedures: [TestProcedure] = []
        for index in 0..<iterations {
            let procedure = TestProcedure(name: "contested \(index)")
            procedures.append(procedure)
            ThreadRace.run(
                skew: Int.random(in: 0..<32),
                { first.addOperation(procedure) },
                { second.addOperation(procedure) })
        }
        wait(forAll: procedures)
        for procedure in procedures {
            XCTAssertEqual(procedure.executeCount, 1, procedure.displayName)
            // The loser finds it either still on the winner's queue or already finished there.
            let kinds = misuse.kinds(about: procedure)
            XCTAssertTrue(
                kinds == [.addedToSecondQueue] || kinds == [.addedAfterFinishing],
                "\(procedure.displayName): \(kinds)")
        }
        first.waitUntilAllOperationsAreFinished()
        second.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(first.unfinishedOperationCount + second.unfinishedOperationCount, 0)
    }

    func testAddingAFinishedProcedureIsReportedAndDoesNotRunAgain() {
        let procedure = TestProcedure(name: "finished")
        wait(for: procedure)
        let delegate = RecordingQueueDelegate()
        let queue = ProcedureQueue()
        queue.delegate = delegate

        queue.addOperation(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.addedAfterFinishing])
        XCTAssertEqual(procedure.executeCount, 1)
        XCTAssertEqual(queue.waitingProcedureCount, 0)
        XCTAssertFalse(delegate.events.contains("didAdd finished"), "\(delegate.events)")
        assertProcedureFinished(procedure)
    }

    func testAddingAProcedureStartedByHandIsReported() {
        let procedure = TracedProcedure("started by hand", trace: CallbackTrace(), onExecute: { _ in })
        procedure.start()
        ProcedureQueue().addOperation(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.addedToSecondQueue])
        procedure.finish()
        wait(for: procedure)
        XCTAssertEqual(procedure.trace.entries.filter { $0 == "execute" }.count, 1)
    }

    // MARK: - Dependencies

    func testAddDependencyAfterEnqueueIsReportedAndIgnored() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure(name: "late dependency")
        queue.addOperation(procedure)
        let gate = makeGate()
        procedure.addDependency(gate)
        XCTAssertEqual(misuse.kinds(about: procedure), [.invalidDependency])
        XCTAssertTrue(procedure.dependencies.isEmpty)

        queue.isSuspended = false
        wait(for: procedure)  // would time out if the dependency had been taken
        assertProcedureFinished(procedure)
        XCTAssertFalse(gate.isFinished)
    }

    func testAddPlainOperationDependencyAfterEnqueueIsReportedAndIgnored() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure(name: "late plain dependency")
        queue.addOperation(procedure)
        let operation = BlockOperation {}
        procedure.addDependency(operation)
        XCTAssertEqual(misuse.kinds(about: procedure), [.invalidDependency])
        XCTAssertTrue(procedure.dependencies.isEmpty)
        queue.isSuspended = false
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testSelfDependencyIsReportedAndIgnored() {
        let procedure = TestProcedure(name: "narcissus")
        procedure.addDependency(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [.invalidDependency])
        XCTAssertTrue(procedure.dependencies.isEmpty)
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    func testRemoveDependencyAfterEnqueueIsReportedAndIgnored() {
        let gate = makeGate()
        let procedure = TestProcedure(name: "keeps its dependency")
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        procedure.removeDependency(gate)
        XCTAssertEqual(misuse.kinds(about: procedure), [.invalidDependency])
        XCTAssertEqual(procedure.dependencies.count, 1)
        XCTAssertFalse(procedure.didExecute)
        gate.finish()
        wait(for: procedure)
        assertProcedureFinished(procedure)
    }

    // MARK: - Cycles
    //
    // The queues are suspended while the cycle is added, so that a member cancelled first
    // cannot finish and release the others before they are cancelled too (that race is
    // DependencyCycleTests.testDependencyCycleOnARunningQueueLetsNoMemberExecute).

    private func assertCycleResolved(
        _ procedures: [TestProcedure], queue: ProcedureQueue, file: StaticString = #filePath, line: UInt = #line
    ) {
        wait(forAll: procedures, file: file, line: line)
        for procedure in procedures {
            assertProcedureCancelled(procedure, withErrors: true, file: file, line: line)
            XCTAssertFalse(procedure.didExecute, "\(procedure.name ?? "")", file: file, line: line)
            let cycleErrors = procedure.errors.compactMap { error -> [String]? in
                if case .dependencyCycle(let names)? = error as? ProcedureError { return names }
                return nil
            }
            XCTAssertEqual(cycleErrors.count, 1, "\(procedure.errors)", file: file, line: line)
            XCTAssertEqual(
                Set(cycleErrors.first ?? []), Set(procedures.compactMap(\.name)),
                "the error names every procedure of the cycle", file: file, line: line)
        }
        let reports = procedures.flatMap { misuse.reports(about: $0) }
        XCTAssertEqual(reports.map(\.kind), [.dependencyCycle], file: file, line: line)
        for name in procedures.compactMap(\.name) {
            XCTAssertTrue(
                reports.first?.message.contains(name) ?? false, "report names \(name): \(reports)",
                file: file, line: line)
        }
        XCTAssertEqual(queue.waitingProcedureCount, 0, file: file, line: line)
    }

    /// Test procedures named `names`, each depending on the next and the last on the first.
    private func makeCycle(_ names: String...) -> [TestProcedure] {
        let procedures = names.map { TestProcedure(name: $0) }
        for (procedure, next) in zip(procedures, procedures.dropFirst() + procedures.prefix(1)) {
            procedure.addDependency(next)
        }
        return procedures
    }

    /// Adds `operations` to `queue` while it is suspended, then resumes it.
    private func addWhileSuspended(_ operations: [Operation], to queue: ProcedureQueue) {
        queue.isSuspended = true
        queue.addOperations(operations, waitUntilFinished: false)
        queue.isSuspended = false
    }

    func testTwoProcedureCycleIsCancelledAndReported() {
        let cycle = makeCycle("A", "B")
        let queue = ProcedureQueue()
        addWhileSuspended(cycle, to: queue)
        assertCycleResolved(cycle, queue: queue)
    }

    func testThreeProcedureCycleIsCancelledAndReported() {
        let cycle = makeCycle("A", "B", "C")
        let queue = ProcedureQueue()
        addWhileSuspended(cycle, to: queue)
        assertCycleResolved(cycle, queue: queue)
    }

    func testThreeProcedureCycleAddedInReverseOrder() {
        let cycle = makeCycle("A", "B", "C")
        let queue = ProcedureQueue()
        addWhileSuspended(cycle.reversed(), to: queue)
        assertCycleResolved(cycle, queue: queue)
    }

    func testCycleAcrossTwoQueuesIsCancelledAndReported() {
        let cycle = makeCycle("A", "B")
        let (a, b) = (cycle[0], cycle[1])
        let first = ProcedureQueue()
        let second = ProcedureQueue()
        first.isSuspended = true
        second.isSuspended = true
        first.addOperation(a)
        second.addOperation(b)
        first.isSuspended = false
        second.isSuspended = false
        wait(for: a, b)
        assertProcedureCancelled(a, withErrors: true)
        assertProcedureCancelled(b, withErrors: true)
        XCTAssertEqual((misuse.reports(about: a) + misuse.reports(about: b)).map(\.kind), [.dependencyCycle])
    }

    /// A barrier between a procedure and its dependency closes a cycle: the dependency, added
    /// after the barrier, waits for it; the barrier waits for the procedure, added before it;
    /// and the procedure waits for its dependency. (Foundation's own barrier hangs here.)
    func testBarrierBetweenAProcedureAndItsLaterAddedDependencyIsACycleThatIsReported() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let dependent = TestProcedure(name: "dependent")
        let dependency = TestProcedure(name: "dependency")
        dependent.addDependency(dependency)
        queue.addOperation(dependent)
        let barrierRan = LockedBox(false)
        queue.addBarrierBlock { barrierRan.mutate { $0 = true } }
        queue.addOperation(dependency)
        queue.isSuspended = false
        wait(for: dependent, dependency)
        for procedure in [dependent, dependency] {
            assertProcedureCancelled(procedure, withErrors: true)
            XCTAssertFalse(procedure.didExecute)
        }
        let reports = misuse.all.filter { $0.kind == .dependencyCycle }
        XCTAssertEqual(reports.count, 1, "\(misuse.all)")
        XCTAssertTrue(reports.first?.message.contains("barrier") ?? false, "\(reports)")
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertFalse(barrierRan.value, "a barrier cancelled as part of a cycle does not run")
    }

    func testProceduresWaitingOnACycleStillRun() {
        let cycle = makeCycle("A", "B")
        let (a, b) = (cycle[0], cycle[1])
        let dependent = TestProcedure(name: "after the cycle")
        dependent.addDependency(a)
        let queue = ProcedureQueue()
        addWhileSuspended([dependent, a, b], to: queue)
        wait(for: a, b, dependent)
        assertProcedureCancelled(a, withErrors: true)
        assertProcedureCancelled(b, withErrors: true)
        assertProcedureFinished(dependent)
        XCTAssertTrue(dependent.didExecute)
        XCTAssertEqual(misuse.kinds(about: dependent), [])
    }

    func testCycleOnARunningQueueNeverHangsAndIsReported() {
        // Whatever the race described above does, every member finishes and one report is made.
        let cycle = makeCycle("A", "B")
        let (a, b) = (cycle[0], cycle[1])
        let queue = ProcedureQueue()
        queue.addOperations(cycle, waitUntilFinished: false)
        wait(for: a, b)
        XCTAssertTrue(a.isCancelled || b.isCancelled)
        XCTAssertEqual((misuse.reports(about: a) + misuse.reports(about: b)).map(\.kind), [.dependencyCycle])
        XCTAssertEqual(queue.waitingProcedureCount, 0)
    }

    func testDiamondIsNotMistakenForACycle() {
        let top = TestProcedure(name: "top")
        let left = TestProcedure(name: "left")
        let right = TestProcedure(name: "right")
        let bottom = TestProcedure(name: "bottom")
        left.addDependency(top)
        right.addDependency(top)
        bottom.addDependencies([left, right])
        let queue = ProcedureQueue()
        addWhileSuspended([bottom, right, left, top], to: queue)
        wait(for: top, left, right, bottom)
        for procedure in [top, left, right, bottom] {
            assertProcedureFinished(procedure)
            XCTAssertEqual(misuse.kinds(about: procedure), [])
        }
    }
}
