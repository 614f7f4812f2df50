import Foundation
import ProceduresTesting
import XCTest

/// How a ``RacingProcedure`` finishes once executing.
private enum FinishMode: CaseIterable {
    /// `finish()` inside `execute()`, while another thread cancels.
    case synchronously
    /// `finish()` from a pool thread, while another thread cancels.
    case fromAnotherThread
    /// `finish()` and `cancel()` from two pool threads at once (plus the outside canceller).
    case racingItsOwnCancel
}

/// A procedure whose finish races cancellation; it counts its callbacks and reports them to a
/// recorder (which fails the test if two overlap).
private final class RacingProcedure: Procedure, @unchecked Sendable {
    // @unchecked: immutable apart from `counters`, which has its own lock.
    let index: Int
    let mode: FinishMode
    let recorder: ProcedureEventRecorder
    let executions: StressCounters
    let didCancels: StressCounters

    init(index: Int, mode: FinishMode, recorder: ProcedureEventRecorder, executions: StressCounters, didCancels: StressCounters) {
        self.index = index
        self.mode = mode
        self.recorder = recorder
        self.executions = executions
        self.didCancels = didCancels
        super.init()
        name = "racer \(index)"
        addObserver(recorder)
    }

    override func execute() {
        recorder.record(.execute, of: self) {
            executions.increment(index)
            switch mode {
            case .synchronously:
                finish()
            case .fromAnotherThread:
                DispatchQueue.global().async { self.finish() }
            case .racingItsOwnCancel:
                DispatchQueue.global().async { self.finish() }
                DispatchQueue.global().async { self.cancel(withError: TestError("self")) }
            }
        }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        recorder.record(.other, of: self) { didCancels.increment(index) }
    }
}

final class CancelFinishRaceStressTests: MisuseRecordingTestCase {
    /// The event sequences (ignoring `.execute` and our own `.other`) a procedure may show.
    private static let allowedSequences: [[ProcedureEventRecorder.Event]] = [
        // ran and finished; a later cancel was ignored
        [.willExecute, .didExecute, .willFinish, .didFinish],
        // cancelled before it started
        [.willCancel, .didCancel, .willFinish, .didFinish],
        // cancelled between will-execute and execute: execute skipped
        [.willExecute, .willCancel, .didCancel, .willFinish, .didFinish],
        // cancelled while executing, before finish was requested
        [.willExecute, .didExecute, .willCancel, .didCancel, .willFinish, .didFinish],
    ]

    func testCancelRacingFinish() {
        let total = stressIterations(10_000)
        let batchSize = 200
        var random = StressRandom()
        let seed = random.seed
        let recorder = ProcedureEventRecorder()
        let executions = StressCounters(count: total)
        let didCancels = StressCounters(count: total)
        let didFinishes = StressCounters(count: total)
        let allFinished = exactCountExpectation("\(total) procedures finished", count: total)

        var procedures: [RacingProcedure] = []
        var cancelErrors: [TestError?] = []
        procedures.reserveCapacity(total)
        let queues = [ProcedureQueue(), ProcedureQueue()]
        queues[1].maxConcurrentOperationCount = 1

        var start = 0
        while start < total {
            let end = min(start + batchSize, total)
            var batch: [RacingProcedure] = []
            var plan: [(cancel: Bool, error: TestError?)] = []
            for index in start..<end {
                let procedure = RacingProcedure(
                    index: index, mode: FinishMode.allCases.randomElement(using: &random)!, recorder: recorder,
                    executions: executions, didCancels: didCancels)
                procedure.addDidFinishBlockObserver { procedure, _ in
                    didFinishes.increment(procedure.index)
                    allFinished.fulfill()
                }
                // A quarter not cancelled; a quarter cancelled by the outside thread; half
                // cancelled from a pool thread the moment they are about to execute, which
                // lands right on top of their finish.
                let choice = Int.random(in: 0..<4, using: &random)
                let error = choice != 0 && Bool.random(using: &random) ? TestError("outside \(index)") : nil
                if choice >= 2 {
                    procedure.addWillExecuteBlockObserver { procedure in
                        DispatchQueue.global().async {
                            if let error { procedure.cancel(withError: error) } else { procedure.cancel() }
                        }
                    }
                }
                plan.append((choice == 1, error))
                batch.append(procedure)
            }
            let queue = queues[Int.random(in: 0..<queues.count, using: &random)]
            let enqueued = batch
            let cancelPlan = plan
            stressConcurrently([
                { queue.addOperations(enqueued, waitUntilFinished: false) },
                {
                    for (procedure, step) in zip(enqueued, cancelPlan) where step.cancel {
                        if let error = step.error { procedure.cancel(withError: error) } else { procedure.cancel() }
                    }
                },
            ])
            procedures.append(contentsOf: batch)
            cancelErrors.append(contentsOf: plan.map(\.error))
            start = end
        }

        let result = XCTWaiter().wait(for: [allFinished], timeout: 60)
        XCTAssertEqual(result, .completed, "seed \(seed): not every procedure finished")

        XCTAssertEqual(recorder.overlaps, [], "seed \(seed)")
        XCTAssertEqual(misuse.reports(aboutAny: procedures).map(\.description), [], "seed \(seed)")
        XCTAssertEqual(didFinishes.values.filter { $0 != 1 }.count, 0, "seed \(seed): did-finish not exactly once")
        XCTAssertEqual(executions.values.filter { $0 > 1 }.count, 0, "seed \(seed): executed twice")

        var outcomes = (cancelledBeforeExecute: 0, cancelledWhileExecuting: 0, notCancelled: 0)
        var failures: [String] = []
        let executionCounts = executions.values
        let didCancelCounts = didCancels.values
        for (procedure, cancelError) in zip(procedures, cancelErrors) {
            let i = procedure.index
            let events = recorder.events(of: procedure)
            let visible = events.filter { $0 != .execute && $0 != .other }
            let describe = "\(procedure.stateSummary) [\(procedure.mode)] events \(events)"
            if let didFinish = events.firstIndex(of: .didFinish), events[(didFinish + 1)...].contains(.other) {
                failures.append("cancel after finish or uncancelled late child: " + describe)
                continue
            }
            guard Self.allowedSequences.contains(visible) else {
                failures.append("unexpected sequence: \(describe)")
                continue
            }
            let cancelled = visible.contains(.willCancel)
            if procedure.isCancelled != cancelled { failures.append("isCancelled disagrees with hooks: \(describe)") }
            if !procedure.isFinished { failures.append("not finished: \(describe)") }
            if didCancelCounts[i] != (cancelled ? 1 : 0) { failures.append("did-cancel override count: \(describe)") }
            let executed = visible.contains(.didExecute)
            if executionCounts[i] != (executed ? 1 : 0) { failures.append("execute count: \(describe)") }
            if events.filter({ $0 == .other }).count != (cancelled ? 1 : 0) { failures.append("override vs observers: \(describe)") }
            // Errors: exactly the winning cancel's error, if it had one.
            let ids = procedure.errors.compactMap { ($0 as? TestError)?.id }
            if !cancelled, !ids.isEmpty { failures.append("errors without a cancel: \(describe)") }
            if cancelled {
                let allowed = [cancelError?.id, "self"].compactMap { $0 }
                if ids.count > 1 || !ids.allSatisfy(allowed.contains) { failures.append("errors \(ids): \(describe)") }
                if visible.contains(.didExecute) { outcomes.cancelledWhileExecuting += 1 } else { outcomes.cancelledBeforeExecute += 1 }
            } else {
                outcomes.notCancelled += 1
            }
        }
        XCTAssertEqual(failures.prefix(10), [], "seed \(seed): \(failures.count) failure(s)")
        print("CancelFinishRaceStressTests: \(total) procedures, seed \(seed), outcomes \(outcomes)")
        // Every outcome showed up, so the race was real.
        if total >= 1000 {
            XCTAssertGreaterThan(outcomes.cancelledBeforeExecute, 0)
            XCTAssertGreaterThan(outcomes.notCancelled, 0)
        }
    }
}

extension CancelFinishRaceStressTests {
    /// Cancel, finish and the queue's start racing: callbacks never overlap, did-finish runs
    /// once, and a procedure that executed was not cancelled before it started.
    func testCancelFinishAndStartRacingNeverOverlapCallbacks() {
        let iterations = stressIterations(300)
        let recorder = ProcedureEventRecorder()
        let queue = ProcedureQueue()
        var procedures: [TestProcedure] = []
        for index in 0..<iterations {
            let procedure = TestProcedure(name: "race \(index)", recorder: recorder)
            procedures.append(procedure)
            ThreadRace.run({ procedure.cancel(withError: TestError("cancel")) }, { queue.addOperation(procedure) })
        }
        wait(forAll: procedures, timeout: 20)
        XCTAssertEqual(recorder.overlaps, [])
        for procedure in procedures {
            let events = recorder.events(of: procedure)
            XCTAssertEqual(events.filter { $0 == .didFinish }.count, 1, procedure.stateSummary)
            XCTAssertEqual(events.filter { $0 == .willCancel }.count, procedure.isCancelled ? 1 : 0)
            if procedure.isCancelled, let cancelAt = events.firstIndex(of: .willCancel),
                let executeAt = events.firstIndex(of: .execute)
            {
                // Cancelled after execute began is fine; before it, execute must not run.
                XCTAssertLessThan(executeAt, cancelAt, "\(procedure.stateSummary): executed after being cancelled")
            }
        }
    }

    /// `cancel()` decides under the lock that it wins (nothing has begun finishing), then queues
    /// its event after releasing the lock; a `finish()` on another thread in that gap must not be
    /// accepted as well. Either the cancel hooks all run before will-finish, or the cancel has no
    /// effect at all: never `procedureWillCancel` after did-finish, will-/did-cancel observers
    /// skipped, or `isCancelled` turning true after `isFinished`.
    func testCancelRacingFinishNeverRunsCancelHooksAfterFinishing() {
        let anomalies = LockedBox<[String]>([])
        let rounds = max(1, stressIterations(20))
        let batchSize = 250
        let queue = ProcedureQueue()
        for _ in 0..<rounds where anomalies.value.isEmpty {
            let executing = XCTestExpectation(description: "all executing")
            executing.expectedFulfillmentCount = batchSize
            let batch = (0..<batchSize).map { i -> ParkedRacer in
                let procedure = ParkedRacer(name: "racer \(i)", anomalies: anomalies)
                procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
                return procedure
            }
            queue.addOperations(batch, waitUntilFinished: false)
            XCTAssertEqual(XCTWaiter().wait(for: [executing], timeout: 10), .completed)
            // Two threads walk the batch in lock step: one finishes, the other cancels.
            let turnstile = Turnstile()
            stressConcurrently([
                { for (i, procedure) in batch.enumerated() { turnstile.meet(side: 0, at: i); procedure.finish() } },
                { for (i, procedure) in batch.enumerated() { turnstile.meet(side: 1, at: i); procedure.cancel() } },
            ])
            wait(forAll: batch, timeout: 10)
            for procedure in batch where procedure.isCancelled && !procedure.willCancelObserved.value {
                anomalies.mutate { $0.append("\(procedure.stateSummary): cancelled but its will-cancel observer never ran") }
            }
        }
        XCTAssertEqual(anomalies.value.count, 0, "\(anomalies.value.prefix(3))")
    }
}

/// Two threads meet at each index before going on.
private final class Turnstile: @unchecked Sendable {
    // @unchecked: `arrived` is only touched under `lock`.
    private let lock = NSLock()
    private var arrived = [-1, -1]

    func meet(side: Int, at index: Int) {
        lock.withLock { arrived[side] = index }
        while lock.withLock({ arrived[1 - side] < index }) { sched_yield() }
    }
}

/// Executes without finishing; records any cancel hook that runs after it has finished.
private final class ParkedRacer: Procedure, @unchecked Sendable {
    // @unchecked: immutable references to thread-safe boxes.
    let anomalies: LockedBox<[String]>
    let willCancelObserved = LockedBox(false)

    init(name: String, anomalies: LockedBox<[String]>) {
        self.anomalies = anomalies
        super.init()
        self.name = name
        addWillCancelBlockObserver { procedure, _ in procedure.willCancelObserved.mutate { $0 = true } }
    }

    override func execute() {}

    override func procedureWillCancel(withErrors errors: [any Error]) {
        if isFinished { anomalies.mutate { $0.append("\(name ?? ""): procedureWillCancel ran after it finished") } }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if isFinished { anomalies.mutate { $0.append("\(name ?? ""): procedureDidCancel ran after it finished") } }
    }
}
