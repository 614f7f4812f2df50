import Foundation
import Procedures

/// One run of a pipeline: the procedure graph, what can stop it (Ctrl-C, `--timeout`), and
/// the summary and exit status once every step has finished.
final class PipelineRun: @unchecked Sendable {
    // @unchecked: `stopReason` and `sources` are guarded by `lock`; the rest is immutable after init.
    enum StopReason { case interrupted, terminated, timedOut, sourcesChanged }

    let context: RunContext
    let jobs: Int
    let timeout: Double?
    let tracePath: String?
    /// `--explain`: SIGUSR1, and `--timeout`, print every unfinished step and why.
    let explain: Bool
    private let queue = ProcedureQueue()
    private let steps: [StepProcedure]
    private let everything: GroupProcedure
    private let lock = NSLock()
    private var stopReason: StopReason?
    private var sources: [any DispatchSourceProtocol] = []
    private let started = Date()
    /// Records the run for `--trace`.
    private let profiler: ProcedureProfiler?

    init(context: RunContext, jobs: Int, timeout: Double?, tracePath: String?, explain: Bool = false) {
        self.explain = explain
        self.context = context
        self.jobs = jobs
        self.timeout = timeout
        self.tracePath = tracePath
        steps = context.pipeline.steps.map { StepProcedure(step: $0, context: context) }
        let byName = Dictionary(uniqueKeysWithValues: steps.map { ($0.step.name, $0) })
        for procedure in steps {
            for name in procedure.step.dependencies { procedure.addDependency(byName[name]!) }
        }
        everything = GroupProcedure(operations: steps)
        everything.name = "pipeline"
        everything.maxConcurrentOperationCount = jobs
        profiler = tracePath == nil ? nil : ProcedureProfiler()
        profiler?.attach(to: everything)
    }

    /// Starts the run; `completion` gets the exit status once every step (and every child
    /// process) has finished. Without `handlingSignals`, Ctrl-C and SIGTERM are the caller's
    /// to handle (`--watch` handles them across runs), by calling ``stop(_:)``.
    func start(handlingSignals: Bool = true, completion: @escaping @Sendable (Int32) -> Void) {
        installStopSources(signals: handlingSignals)
        everything.addDidFinishBlockObserver { [self] _, _ in
            let status = finish()
            completion(status)
        }
        queue.addOperation(everything)
    }

    private func installStopSources(signals: Bool) {
        var installed: [any DispatchSourceProtocol] = []
        for (signalNumber, reason) in [(SIGINT, StopReason.interrupted), (SIGTERM, .terminated)] where signals {
            // Ignored as a signal, seen as an event: the handler runs on a queue, not in a signal context.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in stop(reason) }
            source.resume()
            installed.append(source)
        }
        if let timeout {
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + timeout)
            timer.setEventHandler { [self] in
                if explain { context.display.note(StepWaiting.explanation(steps)) }
                stop(.timedOut)
            }
            timer.resume()
            installed.append(timer)
        }
        if explain {
            // Its own signal, so it works under --watch too (which handles SIGINT and SIGTERM).
            signal(SIGUSR1, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
            source.setEventHandler { [self] in context.display.note(StepWaiting.explanation(steps)) }
            source.resume()
            installed.append(source)
        }
        // Why the steps that have not started wait, as it changes (a few times a second is
        // enough for a person; nothing is recorded for it, it is asked of the procedures).
        let watch = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "steps.waiting"))
        watch.schedule(deadline: .now() + 0.1, repeating: 0.2, leeway: .milliseconds(50))
        watch.setEventHandler { [self] in
            // A stopped run's cancelled steps only wait to finish.
            context.display.stepsWaiting(context.isStopping ? [] : StepWaiting.waiting(steps))
        }
        watch.resume()
        installed.append(watch)
        lock.withLock { sources = installed }
    }

    /// Cancels the whole graph: every running step's process group gets SIGTERM (then SIGKILL
    /// after a grace period), every waiting step is cancelled; the run finishes once they all have.
    func stop(_ reason: StopReason) {
        let first = lock.withLock { () -> Bool in
            guard stopReason == nil else { return false }
            stopReason = reason
            return true
        }
        guard first else { return }
        context.isStopping = true
        let running = steps.filter { $0.isExecuting && $0.record.snapshot.started != nil && $0.record.outcome == nil }.count
        switch reason {
        case .interrupted: context.display.note("Interrupted: stopping \(running) running step(s)…")
        case .terminated: context.display.note("Terminated (SIGTERM): stopping \(running) running step(s)…")
        case .timedOut: context.display.note("Timed out after \(timeout?.formatted ?? "?")s: stopping \(running) running step(s)…")
        case .sourcesChanged: context.display.note("Sources changed: stopping \(running) running step(s), then running again…")
        }
        context.upToDate?.cancelChecks()
        everything.cancel()
    }

    private func finish() -> Int32 {
        let reason = lock.withLock { () -> StopReason? in
            sources.forEach { $0.cancel() }
            return stopReason
        }
        let records = context.pipeline.steps.map { context.records[$0.name]! }
        for record in records where record.outcome == nil { record.finish(.stopped) }
        do {
            try context.upToDate?.save(steps: context.pipeline.steps)
        } catch {
            context.display.note("cannot write \(context.upToDate!.stateURL.path): \(error): the next run checks every step again")
        }
        if let tracePath, let profiler {
            profiler.detach()
            do {
                try StepTrace.write(profiler.chromeTrace(), records: records, to: URL(fileURLWithPath: tracePath))
            } catch {
                context.display.note("\(error)")
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        context.display.runFinished(summary: Summary.render(records, elapsed: elapsed, logDirectory: context.logDirectory.path, stop: reason))
        switch reason {
        case .interrupted?: return 130
        case .terminated?: return 143
        case .timedOut?: return 124
        case .sourcesChanged?: return 1
        case nil: return records.contains { $0.outcome?.failsPipeline ?? false } ? 1 : 0
        }
    }
}
