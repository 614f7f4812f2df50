import Foundation
import Procedures

/// One run of a pipeline: the procedure graph, what can stop it (Ctrl-C, SIGTERM, SIGHUP, a
/// closed standard output, `--timeout`: see ``StopReason``), and the summary and exit status
/// once every step has finished.
final class PipelineRun: @unchecked Sendable {
    // @unchecked: `stopReason`, `forced`, `ended`, `sources` and `completion` are guarded by `lock`; the rest is
    // immutable after init.
    let context: RunContext
    let jobs: Int
    let timeout: Double?
    let tracePath: String?
    /// `--explain`: `--timeout` prints every unfinished step and why (as SIGUSR1 always does).
    let explain: Bool
    private let queue = ProcedureQueue()
    private let steps: [StepProcedure]
    private let everything: GroupProcedure
    private let lock = NSLock()
    private var stopReason: StopReason?
    /// The second signal, which killed every running step at once.
    private var forced: StopReason?
    /// Whether the run has ended: finished, or given up on a second after a second signal.
    private var ended = false
    private var sources: [any DispatchSourceProtocol] = []
    /// Gets the exit status: when the run finishes, or a second after a second signal.
    private var completion: (@Sendable (Int32) -> Void)?
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
    /// process) has finished, or a second after a second Ctrl-C (or SIGTERM) if a step still
    /// holds the run then; it is called once. Without `handlingSignals`, the signals that stop
    /// a run (``StopReason/signals``) are the caller's to handle (`--watch` handles them across
    /// runs), by calling ``stop(_:)``.
    func start(handlingSignals: Bool = true, completion: @escaping @Sendable (Int32) -> Void) {
        lock.withLock { self.completion = completion }
        installStopSources(signals: handlingSignals)
        everything.addDidFinishBlockObserver { [self] _, _ in
            guard let status = finish() else { return }
            completion(status)
        }
        queue.addOperation(everything)
    }

    /// SIGUSR1's default action (ending steps) replaced by "ignore" once per process, before
    /// the first source for it: libdispatch installs the handler that feeds its sources with
    /// that first source only, and "ignore" set again by a later run would replace it, leaving
    /// every later run (under --watch) and every later source deaf to the signal.
    private static let usr1DefaultIgnored: Void = { _ = signal(SIGUSR1, SIG_IGN) }()

    private func installStopSources(signals: Bool) {
        var installed: [any DispatchSourceProtocol] = []
        for (signalNumber, reason) in StopReason.signals where signals {
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
        // With or without --explain (a signal whose default would kill steps and leave its
        // steps' processes running), and each run its own, so it works under --watch too.
        _ = Self.usr1DefaultIgnored
        let explainer = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        explainer.setEventHandler { [self] in context.display.note(StepWaiting.explanation(steps)) }
        explainer.resume()
        installed.append(explainer)
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
    /// after a grace period), every waiting step is cancelled; the run finishes once they all
    /// have. A signal while the run stops kills them at once (``forceStop(_:)``).
    func stop(_ reason: StopReason) {
        let first = lock.withLock { () -> Bool in
            // An ended run has its status: a closed output found by its summary changes nothing.
            guard stopReason == nil, !ended else { return false }
            stopReason = reason
            return true
        }
        guard first else {
            if reason.isSignal { forceStop(reason) }
            return
        }
        context.isStopping = true
        let running = steps.filter { $0.isExecuting && $0.record.snapshot.started != nil && $0.record.outcome == nil }.count
        switch reason {
        case .interrupted: context.display.note("Interrupted: stopping \(running) running step(s)…")
        case .terminated: context.display.note("Terminated (SIGTERM): stopping \(running) running step(s)…")
        case .hungUp: context.display.note("Hung up (SIGHUP): stopping \(running) running step(s)…")
        case .outputClosed:
            // Standard output is gone: the reason goes where it can still be read.
            Output.error("steps: standard output was closed: stopping \(running) running step(s), then exiting with \(reason.exitStatus)")
        case .timedOut: context.display.note("Timed out after \(timeout?.formatted ?? "?")s: stopping \(running) running step(s)…")
        case .sourcesChanged: context.display.note("Sources changed: stopping \(running) running step(s), then running again…")
        }
        context.upToDate?.cancelChecks()
        everything.cancel()
    }

    /// A signal (Ctrl-C, SIGTERM, SIGHUP) while stopping: whoever sends it will not wait out the
    /// grace period. Every running step's process group gets SIGKILL at once; the run then
    /// ends as soon as the killed tries are reaped, and the completion gets the status within
    /// a second whatever still holds a step (a process that left its group and keeps the
    /// output open).
    private func forceStop(_ reason: StopReason) {
        guard lock.withLock({ () -> Bool in
            guard forced == nil, !ended else { return false }
            forced = reason
            return true
        }) else { return }
        let killed = steps.filter { $0.killProcessesNow() }.count
        let word = reason.verdict
        context.display.note("\(word) again: killed the processes of \(killed) running step(s) at once")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in
            // Set by start() before anything can stop the run; nil here if the run has ended.
            let completion = lock.withLock { () -> (@Sendable (Int32) -> Void)? in
                guard !ended else { return nil }
                ended = true
                return self.completion
            }
            guard let completion else { return }
            context.display.runFinished(summary: "\(word) again: not waiting any longer for the steps to finish.\n")
            completion(reason.exitStatus)
        }
    }

    /// The exit status, or nil if steps has already given up on the run after a second signal.
    private func finish() -> Int32? {
        guard let (reason, forced) = lock.withLock({ () -> (StopReason?, StopReason?)? in
            guard !ended else { return nil }
            ended = true
            sources.forEach { $0.cancel() }
            return (stopReason, self.forced)
        }) else { return nil }
        let records = context.pipeline.steps.map { context.records[$0.name]! }
        for record in records where record.outcome == nil { record.finish(.stopped) }
        do {
            try context.upToDate?.save(steps: context.pipeline.steps)
        } catch {
            context.display.note("cannot write \(context.upToDate!.stateURL.path): \(error): the next run checks every step again")
        }
        var traceError: String?
        if let tracePath, let profiler {
            profiler.detach()
            do {
                try StepTrace.write(profiler.chromeTrace(), records: records, to: URL(fileURLWithPath: tracePath))
            } catch {
                traceError = "cannot write the trace to \(tracePath): \(OutputPath.reason(of: error))"
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        context.display.runFinished(summary: Summary.render(records, elapsed: elapsed, logDirectory: context.logDirectory.path + (context.logDirectoryNote.map { " " + $0 } ?? ""), stop: reason))
        // Checked before the run, the trace's file can still become unwritable during it.
        if let traceError { Output.error("steps: \(traceError)") }
        if let stop = forced ?? reason { return stop.exitStatus }
        if records.contains(where: { $0.outcome?.failsPipeline ?? false }) { return 1 }
        return traceError == nil ? 0 : 2
    }
}
