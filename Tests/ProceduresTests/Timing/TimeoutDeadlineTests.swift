import Foundation
import ProceduresTesting
import Synchronization
import XCTest

/// `TimeoutObserver(until:)` is a deadline: it also covers the wait for conditions and
/// exclusivity categories. `by:` keeps starting at will-execute.
final class TimeoutDeadlineTests: MisuseRecordingTestCase {
    private func timedOut(_ procedure: Procedure) -> Bool {
        procedure.errors.contains { if case ProcedureError.timedOut = $0 { return true } else { return false } }
    }

    func testDeadlineCancelsAProcedureWaitingForAConditionThatNeverAnswers() {
        let clock = ManualClock()
        let condition = ManualCondition()
        let stuck = TestProcedure(name: "stuck")
        stuck.addCondition(condition)
        stuck.addObserver(TimeoutObserver(until: Date().addingTimeInterval(60), clock: clock))
        ProcedureQueue().addOperation(stuck)
        wait(for: [condition.evaluating], timeout: 10)
        XCTAssertEqual(clock.pendingDeadlines.count, 1, "the deadline is armed while the condition is evaluated")
        clock.advance(by: 60)
        wait(for: stuck)
        assertProcedureCancelled(stuck, withErrors: true)
        XCTAssertTrue(timedOut(stuck), "\(stuck.errors)")
        XCTAssertFalse(stuck.didExecute)
        // A late answer changes nothing.
        condition.complete(.satisfied)
        XCTAssertFalse(stuck.didExecute)
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all)")
    }

    func testDeadlineCancelsAProcedureWaitingBehindTheHolderOfItsCategoryAndItLeavesTheLine() {
        let clock = ManualClock()
        let category = "deadline-\(UUID().uuidString)"
        let holder = HeldProcedure(name: "holder")
        holder.addCondition(MutuallyExclusive(category: category))
        let waiter = TestProcedure(name: "waiter")
        waiter.addCondition(MutuallyExclusive(category: category))
        waiter.addObserver(TimeoutObserver(until: Date().addingTimeInterval(30), clock: clock))
        let next = TestProcedure(name: "next")
        next.addCondition(MutuallyExclusive(category: category))
        let queue = ProcedureQueue()
        queue.addOperation(holder)
        wait(for: [holder.executing], timeout: 10)
        queue.addOperation(waiter)
        waitUntilScheduled(on: clock)
        queue.addOperation(next)
        clock.advance(by: 30)
        wait(for: waiter)
        assertProcedureCancelled(waiter, withErrors: true)
        XCTAssertTrue(timedOut(waiter), "\(waiter.errors)")
        XCTAssertFalse(waiter.didExecute)
        XCTAssertFalse(next.isFinished, "the holder still holds the category")
        holder.release()
        wait(forAll: [holder, next])
        assertProcedureFinished(next)
        XCTAssertFalse(ExclusivityManager.isInUse(category))
    }

    func testDeadlineThatPassedBeforeTheConditionsWereCheckedCancelsWithoutEvaluatingThem() {
        let clock = ManualClock()
        let condition = ManualCondition()
        let dependency = TestProcedure(delay: 5, clock: clock)
        let late = TestProcedure(name: "late")
        late.addDependency(dependency)
        late.addCondition(condition)
        late.addObserver(TimeoutObserver(until: Date().addingTimeInterval(-1), clock: clock))
        let queue = ProcedureQueue()
        queue.addOperations([dependency, late], waitUntilFinished: false)
        advance(clock, by: 5)
        wait(forAll: [dependency, late])
        assertProcedureCancelled(late, withErrors: true)
        XCTAssertTrue(timedOut(late))
        XCTAssertEqual(condition.evaluationCount, 0)
    }

    func testDeadlineThatPassedBeforeALoneSynchronousConditionWasCheckedCancelsWithoutEvaluatingIt() {
        let clock = ManualClock()
        let evaluated = Atomic<Bool>(false)
        let late = TestProcedure(name: "late")
        late.addCondition(BlockCondition {
            evaluated.store(true, ordering: .relaxed)
            return true
        })
        late.addObserver(TimeoutObserver(until: Date().addingTimeInterval(-1), clock: clock))
        wait(for: late)
        assertProcedureCancelled(late, withErrors: true)
        XCTAssertTrue(timedOut(late))
        XCTAssertFalse(evaluated.load(ordering: .relaxed))
    }

    func testByTimeoutDoesNotCountTheWaitForConditions() {
        let clock = ManualClock()
        let condition = ManualCondition()
        let patient = TestProcedure(name: "patient")
        patient.addCondition(condition)
        patient.addObserver(TimeoutObserver(by: 5, clock: clock))
        ProcedureQueue().addOperation(patient)
        wait(for: [condition.evaluating], timeout: 10)
        XCTAssertTrue(clock.pendingDeadlines.isEmpty, "a by: timeout starts at will-execute")
        clock.advance(by: 100)
        condition.complete(.satisfied)
        wait(for: patient)
        assertProcedureFinished(patient)
    }

    func testDeadlineOnRealTimeCancelsAProcedureStuckInACondition() {
        let condition = ManualCondition()
        let stuck = TestProcedure(name: "stuck in real time")
        stuck.addCondition(condition)
        stuck.addObserver(TimeoutObserver(until: Date().addingTimeInterval(0.05)))
        let started = Date()
        wait(for: stuck)
        assertProcedureCancelled(stuck, withErrors: true)
        XCTAssertTrue(timedOut(stuck))
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        condition.forgetCompletion()
    }
}
