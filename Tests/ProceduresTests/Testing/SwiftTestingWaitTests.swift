import Foundation
import ProceduresTestSupport
import ProceduresTesting
import Testing

/// `try await wait(for:)`: returns once every procedure has finished, adds only those not on a
/// queue, and on timeout records one issue naming each unfinished procedure and why it waits.
/// Each test has its own procedures, queues and clocks, so they run in parallel safely.
@Suite struct SwiftTestingWaitTests {
    /// A procedure whose `execute()` says it runs and forgets to finish; the test finishes it
    /// at the end.
    private final class ForgetsToFinish: Procedure, @unchecked Sendable {
        // @unchecked: its one property is immutable.
        let executing: @Sendable () -> Void
        init(executing: @escaping @Sendable () -> Void) {
            self.executing = executing
            super.init()
            name = "forgetful"
        }
        override func execute() { executing() }
    }

    @Test func returnsOnceEveryProcedureAndItsDidFinishObserversHaveRun() async throws {
        let slow = TestProcedure(name: "slow", delay: 0.05)
        let fast = TestProcedure(name: "fast")
        let observed = LockedBox(false)
        slow.addDidFinishBlockObserver { _, _ in observed.mutate { $0 = true } }
        try await wait(for: slow, fast)
        #expect(slow.isFinished && fast.isFinished)
        #expect(observed.value, "the did-finish observer the procedure had has run")
    }

    @Test func addsTheProceduresNotOnAQueueToTheGivenQueue() async throws {
        let queue = ProcedureQueue()
        let other = ProcedureQueue()
        let freshRanOn = LockedBox<OperationQueue?>(nil)
        let enqueuedRanOn = LockedBox<OperationQueue?>(nil)
        let fresh = BlockProcedure { freshRanOn.mutate { $0 = ProcedureQueue.current } }
        let enqueued = BlockProcedure { enqueuedRanOn.mutate { $0 = ProcedureQueue.current } }
        other.addOperation(enqueued)
        try await wait(forAll: [fresh, enqueued], on: queue)
        #expect(freshRanOn.value === queue)
        #expect(enqueuedRanOn.value === other, "a procedure already on a queue stays there")
    }

    @Test func returnsAtOnceForNoProcedures() async throws {
        try await wait(forAll: [], timeout: 0)
    }

    @Test func aTimeoutRecordsOneIssueNamingEachUnfinishedProcedureAndWhyItWaits() async throws {
        let clock = ManualClock()
        let pause = DelayProcedure(by: 60, clock: clock)
        pause.name = "pause"
        let (executing, started) = AsyncStream<Void>.makeStream()
        let forgetful = ForgetsToFinish { started.yield() }
        let done = TestProcedure(name: "done")
        try await wait(for: done)
        let issues = LockedBox<[String]>([])
        let carriedOn = LockedBox(false)
        let queue = ProcedureQueue()
        queue.addOperations([pause, forgetful], waitUntilFinished: false)
        for await _ in executing { break }
        try await waitUntilScheduled(on: clock)
        try await withKnownIssue {
            try await wait(for: pause, forgetful, done, timeout: 0.2)
            carriedOn.mutate { $0 = true }
        } matching: { issue in
            issues.mutate { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
            return true
        }
        #expect(!carriedOn.value, "the test stops at a wait that timed out")
        #expect(issues.value.count == 1, "one issue, not one more for the error that stopped the test")
        let message = try #require(issues.value.first)
        #expect(message.contains("Timed out after 0.2 s waiting for 2 of 3 procedure(s) to finish"))
        #expect(message.contains("pause: waiting on a ManualClock until 60.0 (now 0.0): advance it"))
        #expect(message.contains("forgetful: executing: did every code path call finish()?"))
        #expect(!message.contains("done"))
        forgetful.finish()
        clock.advance(by: 60)
        try await wait(for: pause, forgetful)
    }

    @Test func aCancelledTestTaskStopsWaitingWithCancellationError() async throws {
        let clock = ManualClock()
        let pause = DelayProcedure(by: 60, clock: clock)
        let waiting = Task { try await wait(for: pause, timeout: 60) }
        try await waitUntilScheduled(on: clock)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        pause.cancel()
        try await wait(for: pause)
        #expect(pause.finishedCancelled)
    }
}
