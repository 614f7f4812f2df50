import Foundation
import XCTest

@testable import Procedures

/// What a procedure keeps of its conditions, driven by hand without threads: when a gate is
/// made, and which lone condition the procedure checks itself.
final class ProcedureConditionsTests: XCTestCase {
    private func describe(_ conditions: ProcedureConditions) -> String {
        switch conditions {
        case .none: return "none"
        case .one(let condition): return "one(\(condition.name))"
        case .gate(let gate): return "gate(\(gate.conditions.map(\.name).joined(separator: ",")))"
        }
    }

    private func named(_ name: String, _ condition: Condition) -> Condition {
        condition.name = name
        return condition
    }

    func testTheFirstConditionNeedsNoGateAndASecondMakesOneKeepingTheOrder() {
        var conditions = ProcedureConditions.none
        XCTAssertTrue(conditions.array.isEmpty)
        conditions.add(named("a", TrueCondition()))
        XCTAssertEqual(describe(conditions), "one(a)")
        XCTAssertNil(conditions.gate)
        conditions.add(named("b", FalseCondition()))
        XCTAssertEqual(describe(conditions), "gate(a,b)")
        conditions.add(named("c", TrueCondition()))
        XCTAssertEqual(describe(conditions), "gate(a,b,c)")
        XCTAssertEqual(conditions.array.map(\.name), ["a", "b", "c"])
    }

    func testALoneConditionThatAnswersAtOnceAndWaitsForNothingIsCheckedWithoutAGate() {
        for condition in [TrueCondition(), FalseCondition(), BlockCondition { true }] as [Condition] {
            var conditions = ProcedureConditions.none
            conditions.add(condition)
            XCTAssertTrue(conditions.checkedAtOnce === condition, "\(type(of: condition))")
        }
    }

    func testALoneConditionThatNeedsTheGatesStepsIsNotCheckedAtOnce() {
        let withDependency = BlockCondition { true }
        withDependency.addDependency(BlockProcedure {})
        let withRequirements = TrueCondition()
        withRequirements.dependencyRequirements = .noFailed
        let lone: [Condition] = [
            BlockCondition { _, completion in completion(.satisfied) },  // answers through a completion
            BlockCondition(async: { true }),
            MutuallyExclusive(category: "disk"),  // claims a category
            withDependency,
            withRequirements,
            !TrueCondition(),  // a compound: its parts may wait
        ]
        for condition in lone {
            var conditions = ProcedureConditions.none
            conditions.add(condition)
            XCTAssertNil(conditions.checkedAtOnce, "\(type(of: condition))")
        }
        var two = ProcedureConditions.none
        two.add(TrueCondition())
        two.add(TrueCondition())
        XCTAssertNil(two.checkedAtOnce, "two conditions go through the gate")
    }

    func testAProcedureWhoseLoneConditionAnswersAtOnceRunsWithoutAGate() {
        let (checked, gated) = (BlockProcedure {}, BlockProcedure {})
        checked.addCondition(BlockCondition { true })
        gated.addCondition(BlockCondition { _, completion in completion(.satisfied) })
        let queue = ProcedureQueue()
        let finished = expectation(description: "both finished")
        finished.expectedFulfillmentCount = 2
        for procedure in [checked, gated] { procedure.addDidFinishBlockObserver { _, _ in finished.fulfill() } }
        queue.addOperations([checked, gated], waitUntilFinished: false)
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(checked.isFinished && !checked.isCancelled)
        XCTAssertNil(checked.lock.withLock { checked.state.gate })
        XCTAssertNotNil(gated.lock.withLock { gated.state.gate }, "a completion is answered through the gate's steps")
    }

    func testALoneConditionThatDoesNotAnswerAtOnceGetsItsGateWhenAdded() {
        var conditions = ProcedureConditions.none
        conditions.add(named("a", BlockCondition { _, completion in completion(.satisfied) }))
        XCTAssertEqual(describe(conditions), "gate(a)")
    }

    func testTheGateForTheStepsIsMadeOnceForALoneConditionThatWaitsFirstAndKeptAfter() {
        var conditions = ProcedureConditions.none
        XCTAssertNil(conditions.gateForSteps(), "nothing to check")
        let waiting = named("a", BlockCondition { true })
        waiting.addDependency(BlockProcedure {})
        conditions.add(waiting)
        XCTAssertEqual(describe(conditions), "one(a)")
        let gate = conditions.gateForSteps()
        XCTAssertEqual(describe(conditions), "gate(a)")
        XCTAssertTrue(conditions.gateForSteps() === gate, "made once")
        XCTAssertTrue(conditions.gate === gate)
    }
}
