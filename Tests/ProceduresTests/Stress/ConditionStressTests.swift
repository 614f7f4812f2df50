import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// Gives other threads a chance to run while inside the exclusive region, so that an
/// overlap, if exclusivity were broken, would show on the counter.
private func stayInside() {
    for _ in 0..<10 { sched_yield() }
}

final class ConditionStressTests: XCTestCase {
    func testTenThousandProceduresSharingACategoryAcrossFourQueuesNeverOverlap() {
        let count = stressIterations(10_000)
        let category = "stress-\(UUID().uuidString)"
        let counter = ConcurrencyCounter()
        let executed = StressCounters(count: count)
        let queues = (0..<4).map { _ in ProcedureQueue() }
        var procedures: [Procedure] = []
        procedures.reserveCapacity(count)
        for index in 0..<count {
            let procedure = BlockProcedure {
                counter.enter()
                executed.increment(index)
                stayInside()
                counter.leave()
            }
            procedure.addCondition(MutuallyExclusive(category: category))
            procedures.append(procedure)
        }
        // Added from four threads at once, each to its own queue: adding races too.
        let toAdd = procedures
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for index in stride(from: lane, to: count, by: 4) { queues[lane].addOperation(toAdd[index]) }
        }
        wait(forAll: procedures, timeout: 120)
        XCTAssertEqual(counter.maximum, 1)
        XCTAssertEqual(executed.values, Array(repeating: 1, count: count))
    }

    func testRandomCategorySetsNeverDeadlockNorOverlap() {
        var random = StressRandom()
        let count = stressIterations(3_000)
        let names = (0..<6).map { "stress-\($0)-\(UUID().uuidString)" }
        let counters = names.map { _ in ConcurrencyCounter() }
        let queues = (0..<3).map { _ in ProcedureQueue() }
        var procedures: [Procedure] = []
        for index in 0..<count {
            // One to three categories, named in a random order.
            let chosen = (0..<(1 + random.nextInt(3))).map { _ in random.nextInt(names.count) }
            let procedure = BlockProcedure {
                for category in Set(chosen) { counters[category].enter() }
                stayInside()
                for category in Set(chosen) { counters[category].leave() }
            }
            for category in chosen { procedure.addCondition(MutuallyExclusive(category: names[category])) }
            if random.nextInt(10) == 0 { procedure.cancel() }
            procedures.append(procedure)
            queues[index % queues.count].addOperation(procedure)
            if random.nextInt(20) == 0 { procedures[random.nextInt(procedures.count)].cancel() }
        }
        wait(forAll: procedures, timeout: 120)
        XCTAssertTrue(counters.allSatisfy { $0.maximum <= 1 }, "seed \(random.seed)")
        XCTAssertFalse(names.contains(where: ExclusivityManager.isInUse), "every category is released, seed \(random.seed)")
    }

    func testConditionsRacingCancellationAlwaysFinishOnce() {
        let count = stressIterations(3_000)
        let executed = StressCounters(count: count)
        let queue = ProcedureQueue()
        var procedures: [BlockProcedure] = []
        for index in 0..<count {
            let procedure = BlockProcedure { executed.increment(index) }
            procedure.addCondition(BlockCondition { _, completion in
                DispatchQueue.global().async { completion(.satisfied) }
            })
            procedure.addCondition(MutuallyExclusive(category: "race-\(index % 7)"))
            procedures.append(procedure)
        }
        for procedure in procedures {
            queue.addOperation(procedure)
            DispatchQueue.global().async { procedure.cancel() }
        }
        wait(forAll: procedures, timeout: 120)
        for (index, procedure) in procedures.enumerated() {
            // Either it ran to completion uncancelled, or it was cancelled and never ran;
            // a cancel that lands once it is executing leaves it running to the end.
            if procedure.isCancelled && executed.values[index] == 0 { continue }
            XCTAssertEqual(executed.values[index], 1, "procedure \(index)")
        }
    }

    func testConditionsOnFiveThousandChildrenOfOneGroup() {
        let count = stressIterations(5_000)
        let executed = StressCounters(count: count)
        let children = (0..<count).map { index -> BlockProcedure in
            let child = BlockProcedure { executed.increment(index) }
            child.addCondition(BlockCondition { index % 5 != 0 })
            return child
        }
        let group = GroupProcedure(operations: children)
        wait(for: group, timeout: 120)
        XCTAssertTrue(group.isFinished)
        for index in 0..<count { XCTAssertEqual(executed.values[index], index % 5 == 0 ? 0 : 1, "child \(index)") }
        XCTAssertEqual(children.filter(\.isCancelled).count, (count + 4) / 5)
    }

    func testTenThousandConditionsOnOneProcedure() {
        let count = stressIterations(10_000)
        let evaluated = LockedBox(0)
        let procedure = TestProcedure()
        for index in 0..<count {
            if index % 2 == 0 {
                procedure.addCondition(TrueCondition())
            } else {
                procedure.addCondition(BlockCondition { _, completion in
                    evaluated.mutate { $0 += 1 }
                    completion(.satisfied)
                })
            }
        }
        wait(for: procedure, timeout: 120)
        assertProcedureFinished(procedure)
        XCTAssertEqual(evaluated.value, count / 2)
    }

    func testTenThousandConditionsEachProducingADependency() {
        let count = stressIterations(10_000)
        let procedure = TestProcedure()
        var produced: [TestProcedure] = []
        for index in 0..<count {
            let condition = TrueCondition()
            let dependency = TestProcedure(name: "produced \(index)")
            condition.produceDependency(dependency)
            produced.append(dependency)
            procedure.addCondition(condition)
        }
        wait(for: procedure, timeout: 120)
        assertProcedureFinished(procedure)
        XCTAssertTrue(produced.allSatisfy(\.didExecute))
    }

    func testLongCompoundConditionsAnswerWithoutOverflowingTheStack() {
        // A flat AllOfCondition of thousands of parts answering at once must not grow the stack
        // with each part. `a && b && c …` nests one AllOfCondition per operator, and nested
        // conditions are walked recursively: a chain of a thousand (`reduce(_, &&)` over a
        // list) is fine, one of tens of thousands is not (use AllOfCondition(list) then).
        // A hundred thousand flat parts overflowed a pool thread's stack when each answer
        // recursed into the next part.
        let count = stressIterations(100_000)
        var chained: Condition = TrueCondition()
        for _ in 0..<1_000 { chained = chained && TrueCondition() }
        let flat = AllOfCondition((0..<count).map { _ in TrueCondition() })
        let anyOf = AnyOfCondition((0..<count).map { _ in FalseCondition() } + [TrueCondition()])
        // Each waits for a dependency, so its conditions are checked on a pool thread (whose
        // stack is smaller than the main thread's), the one that finished the dependency.
        let dependency = BlockProcedure {}
        let procedures = [chained, flat, anyOf].map { condition -> TestProcedure in
            let procedure = TestProcedure()
            procedure.addDependency(dependency)
            procedure.addCondition(condition)
            return procedure
        }
        chained = TrueCondition()
        wait(forAll: procedures + [dependency], timeout: 120)
        for procedure in procedures { assertProcedureFinished(procedure) }
    }

    func testCompoundConditionsWithPartsAnsweringAtOnceOrFromOtherThreads() {
        // Each part answers either before its evaluate returns or from another thread, racing
        // the loop that evaluated it: every part is evaluated once, in order, whichever wins.
        let count = stressIterations(300)
        let parts = 20
        let evaluations = StressCounters(count: count * parts)
        let procedures = (0..<count).map { index -> TestProcedure in
            let conditions = (0..<parts).map { part -> Condition in
                BlockCondition { _, completion in
                    evaluations.increment(index * parts + part)
                    if (index + part) % 3 == 0 {
                        completion(.satisfied)
                    } else {
                        DispatchQueue.global().async { completion(.satisfied) }
                    }
                }
            }
            let procedure = TestProcedure()
            procedure.addCondition(index % 2 == 0 ? AllOfCondition(conditions) : AnyOfCondition([FalseCondition()] + conditions))
            return procedure
        }
        wait(forAll: procedures, timeout: 120)
        for procedure in procedures { assertProcedureFinished(procedure) }
        let values = evaluations.values
        for index in 0..<count {
            // AnyOf stops at its first satisfied part (its second part); AllOf evaluates all.
            let expected = index % 2 == 0 ? Array(repeating: 1, count: parts) : [1] + Array(repeating: 0, count: parts - 1)
            XCTAssertEqual(Array(values[(index * parts)..<((index + 1) * parts)]), expected, "procedure \(index)")
        }
    }
}
