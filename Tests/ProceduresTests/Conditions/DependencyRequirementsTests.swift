import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// A condition evaluated only if its own dependencies did not do what its requirements rule out.
final class DependencyRequirementsTests: XCTestCase {
    private struct Outcome {
        let procedure: TestProcedure
        let evaluated: Bool
    }

    /// Runs a procedure whose one condition, with `requirements`, produces `dependency`.
    private func run(_ requirements: Condition.DependencyRequirements, producing dependency: Procedure) -> Outcome {
        let evaluated = LockedBox(false)
        let condition = BlockCondition {
            evaluated.mutate { $0 = true }
            return true
        }
        condition.name = "Checked"
        condition.dependencyRequirements = requirements
        condition.produceDependency(dependency)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        wait(for: procedure)
        XCTAssertTrue(dependency.isFinished)
        return Outcome(procedure: procedure, evaluated: evaluated.value)
    }

    private func failing() -> TestProcedure { TestProcedure(name: "failing", error: TestError()) }

    private func cancelled(withError: Bool) -> TestProcedure {
        let procedure = TestProcedure(name: "cancelled")
        if withError { procedure.cancel(withError: TestError()) } else { procedure.cancel() }
        return procedure
    }

    private func assertSkipped(_ outcome: Outcome, _ error: ConditionError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(outcome.evaluated, "the condition was evaluated", file: file, line: line)
        XCTAssertFalse(outcome.procedure.didExecute, file: file, line: line)
        XCTAssertEqual(conditionFailure(of: outcome.procedure)?.name, "Checked", file: file, line: line)
        XCTAssertEqual(conditionFailure(of: outcome.procedure)?.error as? ConditionError, error, file: file, line: line)
    }

    private func assertEvaluated(_ outcome: Outcome, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(outcome.evaluated, "the condition was not evaluated", file: file, line: line)
        assertProcedureFinished(outcome.procedure, file: file, line: line)
    }

    func testNoRequirementsEvaluatesWhateverTheDependencyDid() {
        XCTAssertEqual(Condition.DependencyRequirements.none, [])
        XCTAssertEqual(TrueCondition().dependencyRequirements, .none)
        assertEvaluated(run(.none, producing: failing()))
        assertEvaluated(run(.none, producing: cancelled(withError: true)))
    }

    func testNoFailedSkipsEvaluationWhenADependencyCarriesErrors() {
        assertSkipped(run(.noFailed, producing: failing()), .dependenciesFailed(names: ["failing"]))
        assertSkipped(run(.noFailed, producing: cancelled(withError: true)), .dependenciesFailed(names: ["cancelled"]))
    }

    func testNoFailedEvaluatesWhenADependencyWasCancelledWithoutErrors() {
        assertEvaluated(run(.noFailed, producing: cancelled(withError: false)))
    }

    func testNoCancelledSkipsEvaluationWhenADependencyWasCancelled() {
        assertSkipped(run(.noCancelled, producing: cancelled(withError: false)), .dependenciesCancelled(names: ["cancelled"]))
        assertSkipped(run(.noCancelled, producing: cancelled(withError: true)), .dependenciesCancelled(names: ["cancelled"]))
    }

    func testNoCancelledEvaluatesWhenADependencyFailedWithoutBeingCancelled() {
        assertEvaluated(run(.noCancelled, producing: failing()))
    }

    func testIgnoreFailedIfCancelledOnlyForgivesCancelledDependencies() {
        assertEvaluated(run([.noFailed, .ignoreFailedIfCancelled], producing: cancelled(withError: true)))
        assertSkipped(run([.noFailed, .ignoreFailedIfCancelled], producing: failing()), .dependenciesFailed(names: ["failing"]))
    }

    func testRequirementsOfAPartOfACompoundConditionAreChecked() {
        let dependency = failing()
        let part = BlockCondition { true }
        part.name = "Part"
        part.dependencyRequirements = .noFailed
        part.addDependency(dependency)
        let procedure = TestProcedure()
        procedure.addCondition(TrueCondition() && part)
        wait(for: dependency, procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "Part")
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .dependenciesFailed(names: ["failing"]))
    }

    func testRequirementsOfAMutualExclusionAreCheckedAndItsCategoryIsNeverTaken() {
        let category = "requirements-\(UUID().uuidString)"
        let exclusive = MutuallyExclusive(category: category)
        exclusive.dependencyRequirements = .noFailed
        exclusive.produceDependency(failing())
        let procedure = TestProcedure()
        procedure.addCondition(exclusive)
        wait(for: procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(conditionFailure(of: procedure)?.name, exclusive.name)
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .dependenciesFailed(names: ["failing"]))
        XCTAssertFalse(ExclusivityManager.isInUse(category))
    }
}
