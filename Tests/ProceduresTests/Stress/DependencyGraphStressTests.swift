import Foundation
import ProceduresTesting
import XCTest

/// What the graph's procedures report, shared by all of them.
private final class GraphLog: @unchecked Sendable {
    // @unchecked: the expectation is thread-safe; the rest are thread-safe boxes and counters.
    let executions: StressCounters
    let didFinishes: StressCounters
    let finished: XCTestExpectation
    let finishedCount = LockedBox(0)
    /// The nodes between `execute()` and will-finish right now.
    let inFlight = LockedBox<[Int: GraphProcedure]>([:])
    private let violations = LockedBox<[String]>([])

    init(count: Int) {
        executions = StressCounters(count: count)
        didFinishes = StressCounters(count: count)
        finished = exactCountExpectation("\(count) procedures finished", count: count)
    }

    func violation(_ message: String) { violations.mutate { $0.append(message) } }
    var allViolations: [String] { violations.value }
}

/// How a node finishes once it executes.
private enum NodeFinish: CaseIterable {
    case atOnce
    case fromAnotherThread
    /// After 2 ms on a timer, or as soon as it is cancelled, whichever comes first.
    case slowly
}

/// A node of the graph: it checks, when it executes, that all its dependencies have finished,
/// then finishes as its `finishing` says.
private final class GraphProcedure: Procedure, @unchecked Sendable {
    // @unchecked: immutable apart from `finishClaimed`, which is behind its own lock.
    let index: Int
    let finishing: NodeFinish
    let graphLog: GraphLog
    let recorder: ProcedureEventRecorder
    private let finishClaimed = LockedBox(false)

    init(index: Int, finishing: NodeFinish, log: GraphLog, recorder: ProcedureEventRecorder) {
        self.index = index
        self.finishing = finishing
        self.graphLog = log
        self.recorder = recorder
        super.init()
        name = "node \(index)"
        addObserver(recorder)
        addWillFinishBlockObserver { procedure, _ in
            _ = procedure.graphLog.inFlight.mutate { $0.removeValue(forKey: procedure.index) }
        }
    }

    override func execute() {
        recorder.record(.execute, of: self) {
            graphLog.executions.increment(index)
            graphLog.inFlight.mutate { $0[index] = self }
            let unfinished = dependencies.filter { !$0.isFinished }.map { $0.name ?? "?" }
            if !unfinished.isEmpty {
                graphLog.violation("node \(index) executed before its dependencies \(unfinished) finished")
            }
            switch finishing {
            case .atOnce: finish()
            case .fromAnotherThread: DispatchQueue.global().async { self.finish() }
            case .slowly: DispatchQueue.global().asyncAfter(deadline: .now() + 0.002) { self.finishOnce() }
            }
        }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        recorder.record(.other, of: self) {}
        if finishing == .slowly, graphLog.executions.value(index) > 0 { finishOnce() }
    }

    /// The timer and a cancel race to finish a slow node; only the first one calls finish().
    private func finishOnce() {
        let first = finishClaimed.mutate { claimed -> Bool in
            defer { claimed = true }
            return !claimed
        }
        if first { finish() }
    }
}

final class DependencyGraphStressTests: MisuseRecordingTestCase {
    func testRandomDependencyGraphWithRandomCancellations() {
        let rounds = 3
        let count = stressIterations(4000)
        var random = StressRandom()
        let seed = random.seed
        let everything = WeakRefs()
        for round in 0..<rounds {
            runGraph(count: count, round: round, random: &random, seed: seed, tracking: everything)
        }
        // Released once they finished, their queues and observers let go of them. Foundation
        // may drop its references on its own threads, hence the polling.
        waitUntilReleased(everything, timeout: 10)
    }

    /// Builds, runs and checks one graph; tracks its procedures and queues in `refs`.
    private func runGraph(count: Int, round: Int, random: inout StressRandom, seed: UInt64, tracking refs: WeakRefs) {
        let label = "seed \(seed), round \(round)"
        let log = GraphLog(count: count)
        let recorder = ProcedureEventRecorder()
        let queues = (0..<Int.random(in: 1...3, using: &random)).map { _ -> ProcedureQueue in
            let queue = ProcedureQueue()
            queue.maxConcurrentOperationCount = [1, 2, 4, OperationQueue.defaultMaxConcurrentOperationCount]
                .randomElement(using: &random)!
            return queue
        }

        var procedures: [GraphProcedure] = []
        procedures.reserveCapacity(count)
        var edges = 0
        for index in 0..<count {
            let procedure = GraphProcedure(
                index: index, finishing: random.nextInt(100) < 5 ? .slowly : (Bool.random(using: &random) ? .atOnce : .fromAnotherThread),
                log: log, recorder: recorder)
            // Edges only to earlier nodes, so no cycles: mostly near ones (long chains), some far.
            if index > 0 {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let window = Bool.random(using: &random) ? min(index, 20) : index
                    let dependency = procedures[index - Int.random(in: 1...window, using: &random)]
                    procedure.addDependency(dependency)
                    edges += 1
                }
            }
            procedure.addDidFinishBlockObserver { procedure, _ in
                procedure.graphLog.didFinishes.increment(procedure.index)
                procedure.graphLog.finishedCount.mutate { $0 += 1 }
                procedure.graphLog.finished.fulfill()
            }
            procedures.append(procedure)
        }

        // Enqueued in random order (a node may wait on one not yet enqueued) on random
        // queues, while another thread cancels a random tenth of them, spread over the run:
        // each when a random number of procedures have finished.
        var plan: [(procedure: GraphProcedure, queue: ProcedureQueue)] = procedures.map {
            ($0, queues.randomElement(using: &random)!)
        }
        plan.shuffle(using: &random)
        let doomed = procedures.shuffled(using: &random).prefix(count / 10).map { procedure in
            (procedure: procedure, error: Bool.random(using: &random) ? TestError("cancel \(procedure.index)") : nil,
             whenFinished: Int.random(in: 0..<count, using: &random))
        }.sorted { $0.whenFinished < $1.whenFinished }
        let enqueuePlan = plan
        stressConcurrently([
            { for (procedure, queue) in enqueuePlan { queue.addOperation(procedure) } },
            {
                var random = StressRandom(seed: seed &+ UInt64(round))
                for (chosen, error, whenFinished) in doomed {
                    while log.finishedCount.value < whenFinished { sched_yield() }
                    // Half the time, whichever node is executing right now instead.
                    let running = Bool.random(using: &random) ? log.inFlight.value.values.randomElement(using: &random) : nil
                    let procedure = running ?? chosen
                    if let error { procedure.cancel(withError: error) } else { procedure.cancel() }
                }
            },
        ])

        let result = XCTWaiter().wait(for: [log.finished], timeout: 60)
        XCTAssertEqual(result, .completed, "\(label): not every procedure finished")

        XCTAssertEqual(Array(log.allViolations.prefix(5)), [], "\(label): \(log.allViolations.count) violation(s)")
        XCTAssertEqual(recorder.overlaps, [], label)
        XCTAssertEqual(misuse.reports(aboutAny: procedures).map(\.description), [], label)
        let didFinishes = log.didFinishes.values
        let executions = log.executions.values
        var failures: [String] = []
        var outcome = (executed: 0, cancelled: 0, cancelledBeforeExecute: 0, cancelledWhileExecuting: 0, slow: 0)
        for procedure in procedures {
            let i = procedure.index
            let events = recorder.events(of: procedure)
            let describe = "\(procedure.stateSummary), events \(events)"
            if didFinishes[i] != 1 { failures.append("did-finish ran \(didFinishes[i]) times: \(describe)") }
            if events.filter({ $0 == .willFinish }).count != 1 { failures.append("will-finish count: \(describe)") }
            if events.filter({ $0 == .didFinish }).count != 1 { failures.append("did-finish count: \(describe)") }
            if events.last != .didFinish {
                if events.last == .other, events.dropLast().last == .didFinish {
                    failures.append("cancel after finish or uncancelled late child: " + describe)
                    continue
                }
                failures.append("something after did-finish: \(describe)")
            }
            if !procedure.isFinished { failures.append("not finished: \(describe)") }
            if executions[i] > 1 { failures.append("executed twice: \(describe)") }
            if executions[i] == 1 { outcome.executed += 1 }
            if procedure.finishing == .slowly { outcome.slow += 1 }
            if procedure.isCancelled {
                outcome.cancelled += 1
                if executions[i] == 0 { outcome.cancelledBeforeExecute += 1 } else { outcome.cancelledWhileExecuting += 1 }
            } else if executions[i] != 1 {
                failures.append("neither cancelled nor executed: \(describe)")
            }
        }
        XCTAssertEqual(Array(failures.prefix(5)), [], "\(label): \(failures.count) failure(s)")
        print(
            "DependencyGraphStressTests \(label): \(count) procedures, \(edges) edges, \(queues.count) queue(s) of width \(queues.map(\.maxConcurrentOperationCount)), outcome \(outcome)"
        )
        for procedure in procedures { refs.track(procedure, "\(label): \(procedure.name ?? "?")") }
        for (index, queue) in queues.enumerated() { refs.track(queue, "\(label): queue \(index)") }
    }
}
