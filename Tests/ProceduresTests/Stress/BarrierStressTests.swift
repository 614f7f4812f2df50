import Foundation
import ProceduresTesting
import XCTest

/// Barriers racing the hand-over of waiting procedures: while one thread opens the gate that
/// earlier procedures wait for (so they move from the queue's waiting list to Foundation's
/// queue), another adds the barrier and the later procedures, and a third cancels some of the
/// earlier ones. The barrier must run after every earlier procedure finished and before any
/// later one starts.
final class BarrierStressTests: MisuseRecordingTestCase {
    private final class Run: @unchecked Sendable {
        // @unchecked: immutable after init, apart from the thread-safe boxes.
        let earlier: [Procedure]
        let later: [Procedure]
        let barrierRan = LockedBox(false)
        let violations = LockedBox<[String]>([])

        init(iteration: Int, gate: Procedure, random: inout StressRandom) {
            let barrierRan = self.barrierRan
            let violations = self.violations
            earlier = (0..<6).map { index in
                let procedure = BlockProcedure {
                    if barrierRan.value { violations.mutate { $0.append("earlier \(index) ran after the barrier") } }
                }
                procedure.name = "earlier \(index) of \(iteration)"
                return procedure
            }
            for procedure in earlier where random.nextInt(3) > 0 { procedure.addDependency(gate) }
            later = (0..<4).map { index in
                let procedure = BlockProcedure {
                    if !barrierRan.value { violations.mutate { $0.append("later \(index) ran before the barrier") } }
                }
                procedure.name = "later \(index) of \(iteration)"
                return procedure
            }
        }
    }

    /// Operations added by another thread while a barrier is being added are either before it
    /// or after it, never both (which would deadlock): everything finishes.
    func testOperationsAddedWhileABarrierIsAddedAllFinish() {
        let iterations = stressIterations(1_000)
        let queue = ProcedureQueue()
        let barriersRan = exactCountExpectation("every barrier ran", count: iterations)
        let plainRan = exactCountExpectation("every plain operation ran", count: iterations * 4)
        var procedures: [Procedure] = []
        for iteration in 0..<iterations {
            let added = (0..<4).map { index in
                let procedure = BlockProcedure {}
                procedure.name = "concurrent \(index) of \(iteration)"
                return procedure
            }
            stressConcurrently([
                { queue.addBarrierBlock { barriersRan.fulfill() } },
                {
                    for procedure in added {
                        queue.addOperation(procedure)
                        queue.addOperation { plainRan.fulfill() }
                    }
                },
            ])
            procedures += added
        }
        wait(for: [barriersRan, plainRan], timeout: 60)
        wait(forAll: procedures, timeout: 60)
    }

    func testBarrierRacingTheHandOverOfWaitingProcedures() {
        var random = StressRandom()
        let seed = random.seed
        let iterations = stressIterations(1_000)
        let queue = ProcedureQueue()
        let barriersRan = exactCountExpectation("every barrier ran", count: iterations)
        var everything: [Procedure] = []
        var violations: [LockedBox<[String]>] = []
        for iteration in 0..<iterations {
            let gate = BlockProcedure(asyncBlock: { _ in })
            gate.name = "gate \(iteration)"
            let run = Run(iteration: iteration, gate: gate, random: &random)
            let cancelled = run.earlier.filter { _ in random.nextInt(4) == 0 }
            queue.addOperation(gate)
            queue.addOperations(run.earlier, waitUntilFinished: false)
            stressConcurrently([
                { gate.finish() },
                {
                    queue.addBarrierBlock {
                        let unfinished = run.earlier.filter { !$0.isFinished }.compactMap(\.name)
                        if !unfinished.isEmpty {
                            run.violations.mutate { $0.append("barrier ran before \(unfinished)") }
                        }
                        run.barrierRan.mutate { $0 = true }
                        barriersRan.fulfill()
                    }
                    queue.addOperations(run.later, waitUntilFinished: false)
                },
                { for procedure in cancelled { procedure.cancel() } },
            ])
            everything += [gate] + run.earlier + run.later
            violations.append(run.violations)
        }
        wait(for: [barriersRan], timeout: 60)
        wait(forAll: everything, timeout: 60)
        let found = violations.flatMap(\.value)
        XCTAssertTrue(found.isEmpty, "seed \(seed): \(found.prefix(5))")
        XCTAssertEqual(queue.waitingProcedureCount, 0)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }
}
