import Foundation
import ProceduresTesting
import XCTest

/// Cancel racing the start of procedures whose `execute()` polls `isCancelled`: whenever the
/// cancel lands (before the start, between will-execute and execute, during the loop), the
/// procedure finishes cancelled, a running loop sees the flag, and the hooks run exactly once,
/// will before did, never overlapping another callback.
final class CancelPollingStressTests: MisuseRecordingTestCase {
    private static let allowedSequences: [[ProcedureEventRecorder.Event]] = [
        // cancelled before it started: execute() skipped
        [.willCancel, .didCancel, .willFinish, .didFinish],
        // cancelled between will-execute and execute: execute() skipped
        [.willExecute, .willCancel, .didCancel, .willFinish, .didFinish],
        // cancelled while the loop ran: it saw the flag and finished after the hooks were queued
        [.willExecute, .execute, .didExecute, .willCancel, .didCancel, .willFinish, .didFinish],
    ]

    func testCancelRacingAPollingExecute() {
        let total = stressIterations(1_000)
        let recorder = ProcedureEventRecorder()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 2
        var random = StressRandom()
        let seed = random.seed
        var procedures: [PollingProcedure] = []
        var outsideCancels: [PollingProcedure] = []
        for index in 0..<total {
            // A third cancelled by another thread while they are added; a third from a thread
            // of its own the moment they are about to execute; a third from a thread of its
            // own once their loop has begun. (Not pool threads: polling loops hold the pool's
            // few threads, so a cancel queued there would wait for the loops to give up.)
            let choice = Int.random(in: 0..<3, using: &random)
            let box = LockedBox<PollingProcedure?>(nil)
            let procedure = PollingProcedure("poller \(index)", recorder: recorder, patience: 30) {
                if choice == 2, let procedure = box.value { Thread { procedure.cancel() }.start() }
            }
            if choice == 1 {
                procedure.addWillExecuteBlockObserver { procedure in
                    Thread { procedure.cancel() }.start()
                }
            }
            box.mutate { $0 = procedure }
            if choice == 0 { outsideCancels.append(procedure) }
            procedures.append(procedure)
        }
        let everyProcedure = procedures
        let cancelledOutside = outsideCancels
        stressConcurrently([
            { queue.addOperations(everyProcedure, waitUntilFinished: false) },
            { for procedure in cancelledOutside { procedure.cancel() } },
        ])
        wait(forAll: procedures, timeout: 120)

        var outcomes = (beforeExecute: 0, whileExecuting: 0)
        var failures: [String] = []
        for procedure in procedures {
            let events = recorder.events(of: procedure)
            let describe = "\(procedure.stateSummary) events \(events)"
            guard Self.allowedSequences.contains(events) else {
                failures.append("unexpected sequence: \(describe)")
                continue
            }
            if !procedure.isCancelled || !procedure.isFinished { failures.append("not finished cancelled: \(describe)") }
            if events.contains(.execute) {
                outcomes.whileExecuting += 1
                if procedure.sawCancel != true { failures.append("the loop never saw the flag: \(describe)") }
            } else {
                outcomes.beforeExecute += 1
                if procedure.sawCancel != nil { failures.append("execute() ran: \(describe)") }
            }
        }
        XCTAssertEqual(failures.prefix(10), [], "seed \(seed): \(failures.count) failure(s)")
        XCTAssertEqual(recorder.overlaps, [])
        XCTAssertEqual(misuse.reports(aboutAny: procedures).map(\.description), [])
        print("CancelPollingStressTests: \(total) procedures, seed \(seed), outcomes \(outcomes)")
        if total >= 1000 { XCTAssertGreaterThan(outcomes.whileExecuting, 0, "the loop was never cancelled while running") }
    }
}
