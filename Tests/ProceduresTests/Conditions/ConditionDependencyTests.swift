import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// Adds `dependency` to `procedure` from the queue's will-add callback.
private final class AddsDependencyDelegate: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked: immutable.
    let procedure: Procedure
    let dependency: Procedure

    init(procedure: Procedure, dependency: Procedure) {
        self.procedure = procedure
        self.dependency = dependency
    }

    func procedureQueue(_ queue: ProcedureQueue, willAdd operation: Operation) {
        if operation === procedure { procedure.addDependency(dependency) }
    }
}

/// How a procedure's own dependencies and its conditions' dependencies relate.
final class ConditionDependencyTests: MisuseRecordingTestCase {
    func testProcedureDependenciesFinishBeforeConditionsProduceTheirs() {
        let first = TestProcedure(name: "first")
        let second = TestProcedure(name: "second")
        let seen = LockedBox<[Bool]>([])
        let conditions = (0..<2).map { index -> Condition in
            let condition = TrueCondition(name: "condition \(index)")
            condition.produceDependency(BlockProcedure {
                seen.mutate { $0.append(first.isFinished && second.isFinished) }
            })
            return condition
        }
        let procedure = TestProcedure()
        procedure.addDependencies([first, second])
        procedure.addConditions(conditions)
        let queue = ProcedureQueue()
        queue.addOperation(procedure)  // first: it must still wait
        wait(for: first, second, procedure, on: queue)
        XCTAssertEqual(seen.value, [true, true])
        assertProcedureFinished(procedure)
    }

    func testProcedureListsOnlyItsOwnDependencies() {
        let first = TestProcedure(name: "first")
        let second = TestProcedure(name: "second")
        let condition = TrueCondition()
        condition.produceDependency(TestProcedure(name: "produced"))
        condition.addDependency(first)
        let listed = LockedBox<Int?>(nil)
        let procedure = TestProcedure()
        procedure.addDependencies([first, second])
        procedure.addCondition(condition)
        // Counted while its conditions are checked, with every dependency in place (a
        // finished procedure lets go of its procedure dependencies).
        procedure.addCondition(BlockCondition { [unowned procedure] in
            listed.mutate { $0 = procedure.dependencies.count }
            return true
        })
        XCTAssertEqual(procedure.dependencies.count, 2)
        wait(for: first, second, procedure)
        XCTAssertEqual(listed.value, 2)
    }

    func testProcedureAndItsConditionMayShareADependency() {
        let dependency = TestProcedure(name: "shared")
        let condition = TrueCondition()
        condition.addDependency(dependency)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        procedure.addDependency(dependency)
        wait(for: dependency, procedure)
        assertProcedureFinished(dependency)
        assertProcedureFinished(procedure)
    }

    func testOneProcedureMayBeADirectDependencyOfOneAndAConditionDependencyOfAnother() {
        let dependency = TestProcedure(name: "dependency")
        let firstCondition = TrueCondition()
        firstCondition.addDependency(dependency)
        let first = TestProcedure(name: "first")
        first.addCondition(firstCondition)
        first.addDependency(dependency)
        let secondCondition = TrueCondition()
        secondCondition.addDependency(dependency)
        let second = TestProcedure(name: "second")
        second.addCondition(secondCondition)
        second.addDependency(first)
        wait(for: first, dependency, second)
        assertProcedureFinished(dependency)
        assertProcedureFinished(first)
        assertProcedureFinished(second)
    }

    func testDependencyAddedByTheQueueDelegateDelaysTheConditions() {
        let dependency = TestProcedure(name: "added by the delegate")
        let procedure = TestProcedure()
        let sawDependencyFinished = LockedBox<Bool?>(nil)
        procedure.addCondition(BlockCondition {
            sawDependencyFinished.mutate { $0 = dependency.isFinished }
            return true
        })
        let queue = ProcedureQueue()
        let delegate = AddsDependencyDelegate(procedure: procedure, dependency: dependency)
        queue.delegate = delegate
        queue.addOperation(procedure)
        XCTAssertEqual(procedure.dependencies, [dependency])
        queue.addOperation(dependency)
        wait(for: procedure, dependency)
        XCTAssertEqual(sawDependencyFinished.value, true)
        assertProcedureFinished(procedure)
        withExtendedLifetime(delegate) {}
    }

    func testDependencyAddedOnceTheProcedureIsEnqueuedIsReportedAndIgnored() {
        // ProcedureKit let a dependency be added until the procedure started; here the queue
        // tracks dependencies from enqueue on, so a later one is misuse.
        let late = TestProcedure(name: "late")
        let procedure = TestProcedure()
        let condition = ManualCondition()
        procedure.addCondition(condition)
        ProcedureQueue().addOperation(procedure)
        wait(for: [condition.evaluating], timeout: 10)
        procedure.addDependency(late)
        XCTAssertEqual(misuse.kinds(about: procedure), [.invalidDependency])
        condition.complete(.satisfied)
        wait(for: procedure)
        assertProcedureFinished(procedure)
        XCTAssertFalse(late.isEnqueued)
    }

    func testCancelWhileConditionDependenciesRunCancelsOnlyTheProducedOnes() {
        let produced = HeldProcedure(name: "produced")
        produced.addDidCancelBlockObserver { procedure, _ in procedure.release() }
        let waited = HeldProcedure(name: "waited")
        let condition = TrueCondition()
        condition.produceDependency(produced)
        condition.addDependency(waited)
        let procedure = TestProcedure()
        procedure.addCondition(TrueCondition() && condition)
        let queue = ProcedureQueue()
        queue.addOperation(waited)
        queue.addOperation(procedure)
        wait(for: [produced.executing, waited.executing], timeout: 10)
        procedure.cancel()
        wait(for: procedure, produced)
        assertProcedureCancelled(procedure)
        XCTAssertTrue(produced.isCancelled)
        XCTAssertFalse(waited.isCancelled)
        XCTAssertFalse(waited.isFinished)
        waited.release()
        wait(for: waited)
        assertProcedureFinished(waited)
    }

    func testConditionAnsweringAfterItsProcedureFinishedCancelledLetsItGo() {
        let condition = ManualCondition()
        weak var released: TestProcedure?
        do {
            let procedure = TestProcedure()
            released = procedure
            procedure.addCondition(condition)
            ProcedureQueue().addOperation(procedure)
            wait(for: [condition.evaluating], timeout: 10)
            procedure.cancel()
            wait(for: procedure)
            assertProcedureCancelled(procedure)
        }
        // The late answer is harmless, and once given nothing holds the procedure any more.
        condition.complete(.satisfied)
        condition.forgetCompletion()
        XCTAssertNil(released)
    }

    func testConditionsAreEvaluatedOnlyOnceEveryConditionsDependenciesFinished() {
        // In order, one at a time, after all their dependencies: a later condition that would
        // fail does not cut short an earlier one's dependency (ProcedureKit evaluated each
        // condition as soon as its own dependencies finished).
        let log = LockedBox<[String]>([])
        let produced = HeldProcedure(name: "produced")
        let first = LoggingCondition("first", log: log)
        first.produceDependency(produced)
        let second = LoggingCondition("second", log: log, result: .failed(TestError()))
        let procedure = TestProcedure()
        procedure.addConditions([first, second])
        ProcedureQueue().addOperation(procedure)
        wait(for: [produced.executing], timeout: 10)
        XCTAssertEqual(log.value, [])
        XCTAssertFalse(procedure.isFinished)
        XCTAssertTrue(procedure.stateSummary.contains("produced"), procedure.stateSummary)
        produced.release()
        wait(for: procedure)
        XCTAssertEqual(log.value, ["first", "second"])
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "second")
    }

    func testIgnoredConditionCancelsEvenWhenTheOthersAreSatisfied() {
        let procedure = TestProcedure()
        procedure.addCondition(IgnoredCondition(FalseCondition()))
        procedure.addCondition(TrueCondition())
        wait(for: procedure)
        assertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
    }
}
