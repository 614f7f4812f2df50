import Foundation
import ProceduresTesting
import XCTest

// Documentation/TestingProcedures.md and GettingStarted.md, verbatim.

final class GreetingWaitTests: XCTestCase {
    func testFinishes() {
        let greeting = Greeting(who: "waiter")
        wait(for: greeting, timeout: 5)
        assertProcedureFinished(greeting)
    }
}

final class TestProcedureExampleTests: XCTestCase {
    func testDependentWaitsForSlowDependency() {
        let slow = TestProcedure(name: "slow", delay: 0.05)
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(slow)
        wait(for: slow, dependent)
        XCTAssertTrue(slow.didExecute && dependent.didExecute)
    }

    func testFailurePropagatesToTheGroup() {
        let failing = TestProcedure(error: TestError("boom"))
        let group = GroupProcedure(operations: [failing])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
    }
}

final class EventRecorderExampleTests: XCTestCase {
    func testEventOrder() {
        let recorder = ProcedureEventRecorder()
        let procedure = TestProcedure(recorder: recorder)
        wait(for: procedure)
        XCTAssertEqual(recorder.events(of: procedure), [.willExecute, .execute, .didExecute, .willFinish, .didFinish])
        XCTAssertTrue(recorder.overlaps.isEmpty)
    }
}

final class MisuseReportExampleTests: XCTestCase {
    func testFinishingTwiceIsReported() {
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let procedure = BlockProcedure {}
        wait(for: procedure)
        procedure.finish()
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }
}

final class GettingStartedExamplesTests: XCTestCase {
    func testGettingStarted() async throws {
        let queue = ProcedureQueue()
        let hello = BlockProcedure { print("Hello from a procedure") }
        queue.addOperation(hello)
        let fetch = BlockProcedure { print("1. fetch") }
        let store = BlockProcedure { print("2. store") }
        store.addDependency(fetch)
        queue.addOperations([store, fetch], waitUntilFinished: false)
        func measure() async throws -> Int {
            try await queue.run(ResultProcedure { "procedures".count })
        }

        try await queue.run(hello)
        try await queue.run(store)
        XCTAssertTrue(fetch.isFinished)
        let count = try await measure()
        XCTAssertEqual(count, 10)
    }
}

final class ManualClockExampleTests: XCTestCase {
    func testTheReminderWaitsAnHourAndNotASecondLess() {
        let clock = ManualClock()
        let anHour = DelayProcedure(by: 3600, clock: clock)
        let remind = TestProcedure(name: "remind")
        remind.addDependency(anHour)
        ProcedureQueue().addOperations([anHour, remind], waitUntilFinished: false)

        waitUntilScheduled(on: clock)  // the delay is waiting
        clock.advance(by: 3599)
        XCTAssertFalse(anHour.isFinished, "a second early")
        advance(clock, by: 1)
        wait(for: remind)
        XCTAssertTrue(remind.didExecute)
        XCTAssertEqual(clock.now, 3600)
    }

    func testAStepThatTakesTooLongIsCutOffByItsTimeout() {
        let clock = ManualClock()
        let slow = TestProcedure(name: "slow", delay: 60, clock: clock).timeout(after: 30, clock: clock)
        ProcedureQueue().addOperation(slow)

        waitUntilScheduled(on: clock, count: 2)  // its timeout, and the minute it would take
        clock.advance(by: 30)
        wait(for: slow)
        assertProcedureCancelled(slow, withErrors: true)
        guard case .timedOut? = slow.errors.first as? ProcedureError else { return XCTFail("\(slow.errors)") }
    }
}
