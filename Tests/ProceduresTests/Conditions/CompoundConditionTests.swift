import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// How conditions made of other conditions (`AllOfCondition`, `AnyOfCondition`,
/// `NegatedCondition`, `IgnoredCondition`) combine their parts' answers and dependencies.
final class CompoundConditionTests: MisuseRecordingTestCase {
    private func run(with condition: Condition) -> TestProcedure {
        let procedure = TestProcedure()
        procedure.addCondition(condition)
        wait(for: procedure)
        return procedure
    }

    private func counting(_ count: LockedBox<Int>, answer: Bool) -> BlockCondition {
        BlockCondition {
            count.mutate { $0 += 1 }
            return answer
        }
    }

    func testAllOfEvaluatesAPartNamedSeveralTimesOnce() {
        let count = LockedBox(0)
        let part = counting(count, answer: true)
        let procedure = run(with: AllOfCondition([part, part, part]))
        XCTAssertTrue(procedure.didExecute)
        XCTAssertEqual(count.value, 1)
    }

    func testAnyOfEvaluatesAPartNamedSeveralTimesOnce() {
        let count = LockedBox(0)
        let part = counting(count, answer: false)
        let procedure = run(with: AnyOfCondition([part, part, part]))
        XCTAssertFalse(procedure.didExecute)
        XCTAssertEqual(count.value, 1)
    }

    func testCompoundConditionWaitsForADependencyProducedByAPartAfterItWasBuilt() {
        // The parts' dependencies are gathered when the procedure checks its conditions, not
        // when the compound is built, so a part finished setting up later is still waited for.
        let log = LockedBox<[String]>([])
        let part = LoggingCondition("part", log: log)
        let both = TrueCondition() && part
        let produced = BlockProcedure { log.mutate { $0.append("produced") } }
        part.produceDependency(produced)
        let procedure = run(with: both)
        XCTAssertEqual(log.value, ["produced", "part"])
        XCTAssertTrue(produced.isFinished)
        XCTAssertTrue(procedure.didExecute)
    }

    func testCompoundConditionListsOnlyItsOwnDependencies() {
        let parts = (0..<3).map { index -> Condition in
            let part = TrueCondition(name: "part \(index)")
            part.produceDependency(TestProcedure())
            part.addDependency(TestProcedure())
            return part
        }
        let all = AllOfCondition(parts)
        XCTAssertTrue(all.producedDependencies.isEmpty)
        XCTAssertTrue(all.dependencies.isEmpty)
        let own = TestProcedure(name: "own")
        all.produceDependency(own)
        XCTAssertEqual(all.producedDependencies, [own])
    }

    func testCompoundConditionWaitsForItsOwnAndItsPartsDependenciesOnce() {
        let log = LockedBox<[String]>([])
        let shared = BlockProcedure { log.mutate { $0.append("shared") } }
        let part = LoggingCondition("part", log: log)
        part.produceDependency(shared)
        let own = BlockProcedure { log.mutate { $0.append("own") } }
        let all = AllOfCondition([part, IgnoredCondition(part)])
        all.produceDependency(own)
        let procedure = run(with: all)
        XCTAssertTrue(procedure.didExecute)
        // `part` appears twice (directly and inside IgnoredCondition): its procedure runs once.
        XCTAssertEqual(log.value.filter { $0 == "shared" }.count, 1, "\(log.value)")
        XCTAssertEqual(log.value.filter { $0 == "own" }.count, 1, "\(log.value)")
        XCTAssertEqual(log.value.last, "part")
        XCTAssertEqual(misuse.reports(aboutAny: [shared, own]).count, 0, "nothing is added to the queue twice")
    }

    func testNestedAllOfFailureNamesTheInnermostCondition() {
        let procedure = run(with: AllOfCondition([
            AllOfCondition([FalseCondition(), FalseCondition()]), AllOfCondition([TrueCondition()]),
        ]))
        XCTAssertEqual(conditionFailure(of: procedure)?.name, "FalseCondition")
        XCTAssertEqual(conditionFailure(of: procedure)?.error as? ConditionError, .alwaysFalse)
    }

    func testIgnoredCompoundConditionCancelsWithoutErrors() {
        for condition in [
            IgnoredCondition(TrueCondition() && FalseCondition()),
            IgnoredCondition(AnyOfCondition([FalseCondition()])),
            IgnoredCondition(IgnoredCondition(FalseCondition())),
        ] {
            let procedure = run(with: condition)
            assertProcedureCancelled(procedure)
            XCTAssertFalse(procedure.didExecute, condition.name)
        }
    }

    func testAnyOfSkipsIgnoredPartsAndRunsOnASatisfiedOne() {
        XCTAssertTrue(run(with: IgnoredCondition(FalseCondition()) || TrueCondition()).didExecute)
        let failed = run(with: IgnoredCondition(FalseCondition()) || FalseCondition())
        XCTAssertNotNil(conditionFailure(of: failed))
    }

    func testNegatedIgnoredConditionIsSatisfied() {
        XCTAssertTrue(run(with: NegatedCondition(IgnoredCondition(FalseCondition()))).didExecute)
    }

    func testCompoundNamesShowTheirParts() {
        XCTAssertEqual(NegatedCondition(FalseCondition()).name, "Not<FalseCondition>")
        XCTAssertEqual(SilentCondition(FalseCondition()).name, "Silent<FalseCondition>")
        XCTAssertEqual(IgnoredCondition(FalseCondition()).name, "Ignored<FalseCondition>")
    }

    func testSilentConditionLeavesTheConditionItWrapsUnchanged() {
        // ProcedureKit emptied the wrapped condition's produced dependencies; here the wrapped
        // condition can still be used unsilenced elsewhere.
        let produced = TestProcedure()
        let inner = TrueCondition()
        inner.produceDependency(produced)
        _ = SilentCondition(inner)
        XCTAssertEqual(inner.producedDependencies, [produced])
    }

    func testIgnoredPartStopsAllOfLikeAnyAnswerThatIsNotSatisfied() {
        // `.ignored` means "do not run, and that is not an error" wherever it comes from: an
        // ignored part does not abstain (ProcedureKit let the other parts decide).
        let log = LockedBox<[String]>([])
        let ignoredThenTrue = run(with: AllOfCondition([IgnoredCondition(FalseCondition()), LoggingCondition("after", log: log)]))
        assertProcedureCancelled(ignoredThenTrue)
        XCTAssertFalse(ignoredThenTrue.didExecute)
        let ignoredThenFalse = run(with: AllOfCondition([IgnoredCondition(FalseCondition()), FalseCondition()]))
        assertProcedureCancelled(ignoredThenFalse)
        XCTAssertEqual(log.value, [], "evaluation stops at the ignored part")
    }

    func testEmptyAllOfIsSatisfiedAndEmptyAnyOfFails() {
        // All of nothing holds and any of nothing does not, so a list of requirements built
        // from data may be empty. (ProcedureKit cancelled silently in both cases.)
        XCTAssertTrue(run(with: AllOfCondition([])).didExecute)
        let anyOfNone = run(with: AnyOfCondition([]))
        XCTAssertFalse(anyOfNone.didExecute)
        XCTAssertEqual(conditionFailure(of: anyOfNone)?.error as? ConditionError, .noConditionSatisfied(names: []))
    }

    func testCompoundConditionNamesEachCategoryOfItsPartsOnce() {
        let same = AllOfCondition((0..<3).map { _ in MutuallyExclusive(category: "test") })
        XCTAssertEqual(same.mutuallyExclusiveCategories, ["test"])
        let different = AnyOfCondition((0..<3).map { MutuallyExclusive(category: "test\($0)") } + [TrueCondition()])
        XCTAssertEqual(different.mutuallyExclusiveCategories, ["test0", "test1", "test2"])
    }

    func testNegatedSilentAndIgnoredConditionsClaimTheirConditionsCategories() {
        let exclusive = MutuallyExclusive(category: "disk")
        for composed in [NegatedCondition(exclusive), SilentCondition(exclusive), IgnoredCondition(exclusive)] {
            XCTAssertEqual(composed.mutuallyExclusiveCategories, ["disk"], composed.name)
            XCTAssertTrue(composed.condition === exclusive)
        }
    }

    /// A part that answers `result` from another thread, after its `evaluate` returned.
    private func later(_ result: ConditionResult, named name: String) -> Condition {
        let condition = BlockCondition { _, completion in
            DispatchQueue.global().async { completion(result) }
        }
        condition.name = name
        return condition
    }

    func testPartsAnsweringLaterOrAtOnceAreTakenInOrder() {
        let log = LockedBox<[String]>([])
        let allOf = run(with: AllOfCondition([
            later(.satisfied, named: "a"), LoggingCondition("b", log: log), later(.satisfied, named: "c"),
            LoggingCondition("d", log: log, result: .failed(TestError())), LoggingCondition("e", log: log),
        ]))
        XCTAssertEqual(log.value, ["b", "d"])
        XCTAssertEqual(conditionFailure(of: allOf)?.name, "d")
        let anyOf = run(with: AnyOfCondition([
            later(.failed(TestError()), named: "a"), later(.ignored, named: "b"), LoggingCondition("c", log: log),
        ]))
        XCTAssertTrue(anyOf.didExecute)
        let noneOf = run(with: AnyOfCondition([later(.ignored, named: "a"), later(.ignored, named: "b")]))
        assertProcedureCancelled(noneOf)
    }

    func testPartAnsweringTwiceCountsOnce() {
        let twice = BlockCondition { _, completion in
            completion(.satisfied)
            completion(.failed(TestError()))
        }
        let count = LockedBox(0)
        let procedure = run(with: AllOfCondition([twice, counting(count, answer: true)]))
        XCTAssertTrue(procedure.didExecute)
        XCTAssertEqual(count.value, 1)
    }
}
