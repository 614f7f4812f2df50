import Foundation
import ProceduresTestSupport
import ProceduresTesting
import Testing

/// The signal under the Swift Testing waits ends each wait exactly once, whichever of the
/// signal, the timeout and the task's cancellation comes first: a continuation resumed twice
/// would crash, and one never resumed would hang the test.
@Suite struct TimedSignalStressTests {
    @Test func aSignalRacingTheTimeoutAndACancelEndsTheWaitOnce() async {
        let rounds = stressIterations(2_000)
        var cancelledUncancelled = 0
        for round in 0..<rounds {
            let signal = TimedSignal()
            let waiting = Task { await signal.wait(timeout: 0) }
            // Signalled from a thread of its own, before, during or after the wait begins.
            let signaller = Thread { signal.signal() }
            signaller.start()
            let cancels = round.isMultiple(of: 3)
            if cancels { waiting.cancel() }
            let outcome = await waiting.value
            if !cancels, outcome == .cancelled { cancelledUncancelled += 1 }
            signal.signal()  // after the end: ignored
        }
        #expect(cancelledUncancelled == 0, "only a cancelled task's wait ends as cancelled")
    }

    @Test func aSignalBeforeTheWaitEndsItAtOnce() async {
        let signal = TimedSignal()
        signal.signal()
        #expect(await signal.wait(timeout: 60) == .signalled)
    }

    @Test func aWaitNobodySignalsTimesOutOnItsClock() async throws {
        let clock = ManualClock()
        let signal = TimedSignal()
        async let outcome = signal.wait(timeout: 5, clock: clock)
        try await waitUntilScheduled(on: clock)
        clock.advance(by: 5)
        #expect(await outcome == .timedOut)
    }
}
