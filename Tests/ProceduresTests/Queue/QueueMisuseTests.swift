import Foundation
import ProceduresTesting
import XCTest

/// Adding procedures wrongly, bad dependencies and dependency cycles: each ignored (or, for a
/// cycle, resolved by cancelling) and reported, never a hang.
final class QueueMisuseTests: CoreTestCase {
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

    func testAddingAFinishedProcedureIsReportedAndDoesNotRunAgain() {
        let procedure = TestProcedure(name: "finished")
        wait(for: procedure)
        let delegate = CoreRecordingDelegate()
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
        let procedure = CoreTracedProcedure("started by hand", trace: CoreTrace(), onExecute: { _ in })
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
    // RegressionTests.testdependencyCycleOnARunningQueueLetsAMemberExecute).

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

    func testTwoProcedureCycleIsCancelledAndReported() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.addDependency(b)
        b.addDependency(a)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperations([a, b], waitUntilFinished: false)
        queue.isSuspended = false
        assertCycleResolved([a, b], queue: queue)
    }

    func testThreeProcedureCycleIsCancelledAndReported() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        let c = TestProcedure(name: "C")
        a.addDependency(b)
        b.addDependency(c)
        c.addDependency(a)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperations([a, b, c], waitUntilFinished: false)
        queue.isSuspended = false
        assertCycleResolved([a, b, c], queue: queue)
    }

    func testThreeProcedureCycleAddedInReverseOrder() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        let c = TestProcedure(name: "C")
        a.addDependency(b)
        b.addDependency(c)
        c.addDependency(a)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperations([c, b, a], waitUntilFinished: false)
        queue.isSuspended = false
        assertCycleResolved([a, b, c], queue: queue)
    }

    func testCycleAcrossTwoQueuesIsCancelledAndReported() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.addDependency(b)
        b.addDependency(a)
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

    func testProceduresWaitingOnACycleStillRun() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        let dependent = TestProcedure(name: "after the cycle")
        a.addDependency(b)
        b.addDependency(a)
        dependent.addDependency(a)
        let queue = ProcedureQueue()
        queue.isSuspended = true
        queue.addOperations([dependent, a, b], waitUntilFinished: false)
        queue.isSuspended = false
        wait(for: a, b, dependent)
        assertProcedureCancelled(a, withErrors: true)
        assertProcedureCancelled(b, withErrors: true)
        assertProcedureFinished(dependent)
        XCTAssertTrue(dependent.didExecute)
        XCTAssertEqual(misuse.kinds(about: dependent), [])
    }

    func testCycleOnARunningQueueNeverHangsAndIsReported() {
        // Whatever the race described above does, every member finishes and one report is made.
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.addDependency(b)
        b.addDependency(a)
        let queue = ProcedureQueue()
        queue.addOperations([a, b], waitUntilFinished: false)
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
        queue.isSuspended = true
        queue.addOperations([bottom, right, left, top], waitUntilFinished: false)
        queue.isSuspended = false
        wait(for: top, left, right, bottom)
        for procedure in [top, left, right, bottom] {
            assertProcedureFinished(procedure)
            XCTAssertEqual(misuse.kinds(about: procedure), [])
        }
    }
}
