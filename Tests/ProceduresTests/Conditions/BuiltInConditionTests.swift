import Foundation
import Procedures
import Synchronization
import ProceduresTesting
import XCTest

final class BuiltInConditionTests: XCTestCase {
    /// Runs a procedure with `condition` and returns it, finished.
    private func run(with condition: Condition, dependencies: [Procedure] = []) -> TestProcedure {
        let procedure = TestProcedure()
        procedure.addDependencies(dependencies)
        procedure.addCondition(condition)
        wait(forAll: dependencies + [procedure])
        return procedure
    }

    func testTrueConditionIsSatisfied() {
        XCTAssertTrue(run(with: TrueCondition()).didExecute)
    }

    func testFalseConditionFails() {
        let procedure = run(with: FalseCondition())
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "FalseCondition")
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .alwaysFalse)
    }

    func testBlockConditionReturningTrueFalseOrThrowing() {
        XCTAssertTrue(run(with: BlockCondition { true }).didExecute)
        let refused = run(with: BlockCondition { false })
        XCTAssertEqual(conditionFailure(of: refused)?.error as? ConditionError, .blockReturnedFalse)
        let thrown = run(with: BlockCondition { throw TestError("thrown") })
        XCTAssertEqual(conditionFailure(of: thrown)?.error as? TestError, TestError("thrown"))
    }

    func testASynchronousBlockConditionRunsOnceAndIsTheNamedWaitWhileItRuns() {
        let entered = expectation(description: "the block runs")
        let release = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        let condition = BlockCondition {
            calls.add(1, ordering: .relaxed)
            entered.fulfill()
            release.wait()
            return true
        }
        condition.name = "probe"
        let (procedure, queue) = (TestProcedure(), ProcedureQueue())
        procedure.addCondition(condition)
        // The block is evaluated on the thread that adds the procedure, which it holds up.
        Thread { queue.addOperation(procedure) }.start()
        wait(for: [entered], timeout: 10)
        XCTAssertEqual(procedure.waitingReason.map { "\($0)" }, "waiting for condition probe to answer")
        release.signal()
        wait(for: procedure, on: queue)
        XCTAssertTrue(procedure.didExecute)
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
    }

    func testACancelWhileASynchronousBlockConditionRunsStopsTheProcedure() {
        let entered = expectation(description: "the block runs")
        let release = DispatchSemaphore(value: 0)
        let (procedure, queue) = (TestProcedure(), ProcedureQueue())
        procedure.addCondition(BlockCondition {
            entered.fulfill()
            release.wait()
            return true
        })
        let second = Atomic<Bool>(false)
        procedure.addCondition(BlockCondition {
            second.store(true, ordering: .relaxed)
            return true
        })
        Thread { queue.addOperation(procedure) }.start()
        wait(for: [entered], timeout: 10)
        procedure.cancel()
        release.signal()
        wait(for: procedure, on: queue)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertFalse(second.load(ordering: .relaxed), "the conditions after the one that was running are not evaluated")
    }

    func testBlockConditionCompletionFormAnswersFromAnotherThread() {
        let condition = BlockCondition { procedure, completion in
            DispatchQueue.global().async { completion(procedure.name == "TestProcedure" ? .satisfied : .ignored) }
        }
        XCTAssertTrue(run(with: condition).didExecute)
    }

    func testBlockConditionAsyncForm() {
        let satisfied = run(with: BlockCondition(async: {
            await Task.yield()
            return true
        }))
        XCTAssertTrue(satisfied.didExecute)
        let thrown = run(with: BlockCondition(async: { throw TestError("async") }))
        XCTAssertEqual(conditionFailure(of: thrown)?.error as? TestError, TestError("async"))
    }

    func testNoFailedDependenciesIsSatisfiedWhenAllSucceeded() {
        XCTAssertTrue(run(with: NoFailedDependenciesCondition(), dependencies: [TestProcedure()]).didExecute)
    }

    func testNoFailedDependenciesFailsNamingTheFailedDependency() {
        let failed = TestProcedure(name: "download", error: TestError())
        let procedure = run(with: NoFailedDependenciesCondition(), dependencies: [failed, TestProcedure(name: "fine")])
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .dependenciesFailed(names: ["download"]))
    }

    func testNoFailedDependenciesFailsOnCancelledDependency() {
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel()
        let procedure = run(with: NoFailedDependenciesCondition(), dependencies: [cancelled])
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .dependenciesCancelled(names: ["cancelled"]))
    }

    func testNoFailedDependenciesIgnoringCancellationsCancelsWithoutError() {
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel()
        let procedure = run(with: NoFailedDependenciesCondition(ignoreCancellations: true), dependencies: [cancelled])
        XCTAssertFalse(procedure.didExecute)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertTrue(procedure.errors.isEmpty)
    }

    func testNoFailedDependenciesIgnoringCancellationsStillFailsOnErrors() {
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel()
        let failed = TestProcedure(name: "failed", error: TestError())
        let procedure = run(with: NoFailedDependenciesCondition(ignoreCancellations: true), dependencies: [cancelled, failed])
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .dependenciesFailed(names: ["failed"]))
    }

    func testNegatedConditionInvertsTheAnswer() {
        let negatedTrue = run(with: NegatedCondition(TrueCondition()))
        XCTAssertEqual(conditionFailure(of: negatedTrue)?.error as? ConditionError, .negatedConditionSatisfied(name: "TrueCondition"))
        XCTAssertTrue(run(with: !FalseCondition()).didExecute)
        XCTAssertTrue(run(with: !BlockCondition { _, completion in completion(.ignored) }).didExecute)
    }

    func testSilentConditionNeitherProducesNorWaitsForDependencies() {
        let produced = TestProcedure(name: "login screen")
        let inner = TrueCondition()
        inner.produceDependency(produced)
        let procedure = run(with: SilentCondition(inner))
        XCTAssertTrue(procedure.didExecute)
        XCTAssertFalse(produced.isEnqueued)
    }

    func testIgnoredConditionTurnsAFailureIntoASilentCancel() {
        let procedure = run(with: IgnoredCondition(FalseCondition()))
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertTrue(procedure.errors.isEmpty)
        XCTAssertTrue(run(with: IgnoredCondition(TrueCondition())).didExecute)
    }

    func testAllOfNeedsEveryConditionAndNamesTheOneThatFailed() {
        XCTAssertTrue(run(with: TrueCondition() && BlockCondition { true }).didExecute)
        let refused = BlockCondition { false }
        refused.name = "Refused"
        let log = LockedBox<[String]>([])
        let procedure = run(with: AllOfCondition([TrueCondition(), refused, LoggingCondition("after", log: log)]))
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "Refused")
        XCTAssertEqual(log.value, [], "evaluation stops at the first failure")
    }

    func testAnyOfNeedsOneCondition() {
        XCTAssertTrue(run(with: FalseCondition() || TrueCondition()).didExecute)
        let none = run(with: FalseCondition() || FalseCondition())
        XCTAssertEqual(
            conditionFailure(of: none)?.error as? ConditionError,
            .noConditionSatisfied(names: ["FalseCondition", "FalseCondition"]))
        let ignored = run(with: IgnoredCondition(FalseCondition()) || IgnoredCondition(FalseCondition()))
        XCTAssertTrue(ignored.isCancelled)
        XCTAssertTrue(ignored.errors.isEmpty)
    }

    func testCompoundConditionWaitsForTheDependenciesOfItsParts() {
        let log = LockedBox<[String]>([])
        let produced = BlockProcedure { log.mutate { $0.append("produced") } }
        let part = LoggingCondition("part", log: log)
        part.produceDependency(produced)
        let procedure = run(with: TrueCondition() && part)
        XCTAssertEqual(log.value, ["produced", "part"])
        XCTAssertTrue(procedure.didExecute)
    }
}
