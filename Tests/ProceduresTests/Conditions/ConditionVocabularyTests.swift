import Foundation
import Procedures
import ProceduresTesting
import XCTest

private final class Alert: Procedure, @unchecked Sendable {
    // @unchecked: no state of its own.
    override func execute() { finish() }
}

/// The names ProcedureKit users reach for, and what they answer.
final class ConditionVocabularyTests: XCTestCase {
    func testConditionDependenciesAreListedAddedAndRemoved() {
        let condition = TrueCondition()
        let waited = TestProcedure(name: "waited")
        let produced = TestProcedure(name: "produced")
        condition.addDependency(waited)
        condition.produceDependency(produced)
        XCTAssertEqual(condition.dependencies, [waited])
        XCTAssertEqual(condition.producedDependencies, [produced])
        condition.removeDependency(produced)
        XCTAssertTrue(condition.producedDependencies.isEmpty)
        XCTAssertEqual(condition.dependencies, [waited])
        condition.removeDependency(waited)
        XCTAssertTrue(condition.dependencies.isEmpty)
    }

    func testRemovedDependencyIsNotWaitedFor() {
        let condition = TrueCondition()
        let never = TestProcedure(name: "never run")
        condition.addDependency(never)
        condition.removeDependency(never)
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        wait(for: procedure)
        XCTAssertTrue(procedure.didExecute)
        XCTAssertFalse(never.isEnqueued)
    }

    func testTrueAndFalseConditionsTakeAName() {
        XCTAssertEqual(TrueCondition(name: "Online").name, "Online")
        let procedure = TestProcedure()
        procedure.addCondition(FalseCondition(name: "Offline"))
        wait(for: procedure)
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "Offline")
    }

    func testConditionsAreEqualOnlyToThemselves() {
        let condition = TrueCondition()
        let alias = condition
        let other = TrueCondition()
        XCTAssertEqual(condition, alias)
        XCTAssertNotEqual(condition, other)
        XCTAssertEqual(Set<Condition>([condition, alias, other]).count, 2)
    }

    func testMutuallyExclusiveNamesAndCategories() {
        let byType = MutuallyExclusive<Alert>()
        XCTAssertEqual(byType.name, "MutuallyExclusive<Alert>")
        XCTAssertEqual(byType.category, String(reflecting: Alert.self))
        XCTAssertTrue(byType.isMutuallyExclusive)
        let named = MutuallyExclusive<Alert>(category: "testing")
        XCTAssertEqual(named.mutuallyExclusiveCategories, ["testing"])
        XCTAssertEqual(named.name, "MutuallyExclusive<testing>")
        XCTAssertEqual(MutuallyExclusive(category: "screen").name, "MutuallyExclusive<screen>")
        XCTAssertFalse(TrueCondition().isMutuallyExclusive)
        XCTAssertTrue((TrueCondition() && MutuallyExclusive(category: "screen")).isMutuallyExclusive)
    }

    func testMutuallyExclusiveIsSatisfiedWhenEvaluatedAlone() {
        let answered = expectation(description: "answered")
        MutuallyExclusive<Alert>().evaluate(for: TestProcedure()) { result in
            if case .satisfied = result { answered.fulfill() }
        }
        wait(for: [answered], timeout: 10)
    }
}
