import Foundation
import ProceduresTesting
import Testing

// Documentation/TestingProcedures.md's Swift Testing examples, verbatim.

@Suite struct GreetingSwiftTestingTests {
    @Test func greetingFinishes() async throws {
        let greeting = Greeting(who: "waiter")
        try await wait(for: greeting, timeout: 5)
        #expect(greeting.finishedWithoutErrors)
    }

    @Test func failurePropagatesToTheGroup() async throws {
        let failing = TestProcedure(error: TestError("boom"))
        let group = GroupProcedure(operations: [failing])
        try await wait(for: group)
        #expect(group.finishedWithErrors)
        #expect(group.errors.count == 1)
    }

    @Test func theReminderWaitsAnHourAndNotASecondLess() async throws {
        let clock = ManualClock()
        let anHour = DelayProcedure(by: 3600, clock: clock)
        let remind = TestProcedure(name: "remind")
        remind.addDependency(anHour)
        ProcedureQueue().addOperations([anHour, remind], waitUntilFinished: false)

        try await waitUntilScheduled(on: clock)  // the delay is waiting
        clock.advance(by: 3599)
        #expect(!anHour.isFinished, "a second early")
        try await advance(clock, by: 1)
        try await wait(for: remind)
        #expect(remind.didExecute)
        #expect(clock.now == 3600)
    }

    @Test func aStepThatTakesTooLongIsCutOffByItsTimeout() async throws {
        let clock = ManualClock()
        let slow = TestProcedure(name: "slow", delay: 60, clock: clock).timeout(after: 30, clock: clock)
        ProcedureQueue().addOperation(slow)

        try await waitUntilScheduled(on: clock, count: 2)  // its timeout, and the minute it would take
        clock.advance(by: 30)
        try await wait(for: slow)
        #expect(slow.finishedCancelled)
        #expect(slow.errors.map { "\($0)" } == ["timed out after 30 s"])
    }
}
