import Foundation
import Procedures
import ProceduresProcess

/// One step of the pipeline, as procedures:
///
/// - the step is a `GroupProcedure` that depends on the steps it needs, with, in this order,
///   a condition on its needs (one that failed, or was skipped because of a failure, fails it:
///   it is skipped; one that was stopped makes it stop silently), its `when` as a
///   `BlockCondition` that is ignored (cancels without an error) when it does not hold, and a
///   `MutuallyExclusive(category:)` per category. Conditions are checked before categories
///   are taken, so a step that is skipped never holds a category, not even briefly;
/// - its one child is a `RetryProcedure` of `ProcessProcedure`s (one per try, each with a
///   `TimeoutObserver`), waiting between tries as the step's back-off says.
///
/// A step skipped by its `when` finishes without errors and its record says so, so the steps
/// that need it still run. It reports what happens to the run's display, and keeps every
/// try's output in its log.
final class StepProcedure: GroupProcedure, @unchecked Sendable {
    // @unchecked: `runState` is guarded by `runStateLock`; `step`, `record` and `context` are immutable.
    let step: Step
    let record: StepRecord
    private let context: RunContext
    private let runStateLock = NSLock()
    private struct RunState {
        var attempt = 0
        var lastFailure: String?
        var succeeded = false
        var skipReason: String?
        var upToDate = false
        var sink: StepOutputSink?
        /// The try that is running, if one is.
        var running: ProcessProcedure?
    }
    private var runState = RunState()

    init(step: Step, context: RunContext) {
        self.step = step
        self.context = context
        record = context.records[step.name]!
        super.init()
        name = step.name
        // Needs are judged by their records (written in their will-finish, before this step's
        // conditions run), not by cancellation: a need skipped by its `when` was cancelled
        // without errors and still counts as done.
        if !step.dependencies.isEmpty {
            addCondition(BlockCondition(evaluate: { [weak self] _, completion in
                guard let self else { return completion(.ignored) }
                completion(self.needsResult())
            }))
        }
        if !step.when.isEmpty {
            addCondition(BlockCondition(evaluate: { [weak self] _, completion in
                guard let self else { return completion(.ignored) }
                completion(self.whenResult())
            }))
        }
        // After `when` (a skipped step's sources are not read), before the categories (an up
        // to date step never takes them).
        if step.sources != nil, let tracker = context.upToDate {
            addCondition(BlockCondition(evaluate: { [weak self] _, completion in
                guard let self else { return completion(.ignored) }
                self.checkUpToDate(tracker, completion: completion)
            }))
        }
        for category in step.exclusive { addCondition(MutuallyExclusive(category: category)) }
        // Will-finish: the outcome must be recorded before the steps that need this one are released.
        addWillFinishBlockObserver { step, _ in step.report() }
    }

    private var environment: [String: String] { context.baseEnvironment.merging(step.environment) { $1 } }

    /// The tries are added only now, so that a graph drawn before the run shows the steps alone.
    override func execute() {
        do {
            let sink = try StepOutputSink(for: record, context: context)
            runStateLock.withLock { runState.sink = sink }
            addChild(makeTries(sink))
        } catch {
            runStateLock.withLock { runState.lastFailure = "cannot write its logs: \((error as NSError).localizedDescription)" }
        }
        super.execute()
    }

    private func makeTries(_ sink: StepOutputSink) -> RetryProcedure<ProcessProcedure> {
        let retry = step.retry ?? Step.Retry(attempts: 1, backoff: 0, maxBackoff: 0)
        let wait: WaitStrategy = retry.backoff > 0
            ? .exponential(initial: retry.backoff, multiplier: 2, maximum: retry.maxBackoff) : .immediate
        var number = 0
        let tries = RetryProcedure<ProcessProcedure>(
            maxAttempts: retry.attempts, wait: wait,
            retry: { [weak self] failure, suggested in
                // The wait is chosen here, so that what the display says is what is waited.
                let seconds = wait.interval(forWait: failure.count)
                if let self {
                    let reason = self.describe(failure.errors)
                    self.record.waitStarted(beforeTry: failure.count + 1, seconds: seconds)
                    self.context.display.stepWillRetry(self.record, failedAttempt: failure.count, reason: reason, wait: seconds)
                }
                return RepeatProcedurePayload(operation: suggested.operation, wait: seconds, configure: suggested.configure)
            },
            // Unowned: the tries only make an attempt while they run, as this group's child,
            // and a running group is held by its queue.
            attempt: { [unowned self] in
                number += 1
                return makeAttempt(number, sink: sink)
            })
        tries.name = "\(step.name) tries"
        return tries
    }

    private func makeAttempt(_ number: Int, sink: StepOutputSink) -> ProcessProcedure {
        let directory = context.directory(of: step)
        let attempt: ProcessProcedure
        switch step.command {
        case .shell(let command):
            attempt = ProcessProcedure(
                shellCommand: command, environment: environment, workingDirectory: directory,
                standardOutput: .lines, standardError: .lines, terminationGracePeriod: context.gracePeriod)
        case .argv(let words):
            attempt = ProcessProcedure(
                executable: words[0], arguments: Array(words.dropFirst()), environment: environment,
                workingDirectory: directory, standardOutput: .lines, standardError: .lines, terminationGracePeriod: context.gracePeriod)
        }
        attempt.name = "\(step.name) · try \(number)"
        // Both streams are delivered on the child's one serial queue, before the procedure
        // finishes: written as they come, in the order they come.
        attempt.standardOutputLineData.onSuccess(context: .immediate) { line in sink.write(line, stream: .output) }
        attempt.standardErrorLineData.onSuccess(context: .immediate) { line in sink.write(line, stream: .error) }
        if let timeout = step.timeout { attempt.addObserver(TimeoutObserver(by: timeout)) }
        attempt.addWillExecuteBlockObserver { [self] attempt in
            runStateLock.withLock {
                runState.attempt = number
                runState.running = attempt
            }
            if number > 1 { sink.beginTry(number, of: step.attempts) }
            record.attemptStarted(number)
            context.display.stepStarted(record, attempt: number)
        }
        attempt.addDidFinishBlockObserver { [self] attempt, errors in
            // Read before the lock: `isCancelled` takes the procedure's lock.
            let cancelled = attempt.isCancelled
            runStateLock.withLock {
                runState.running = nil
                if errors.isEmpty && !cancelled {
                    runState.succeeded = true
                } else {
                    runState.lastFailure = describe(errors)
                }
            }
        }
        return attempt
    }

    /// Sends SIGKILL to the process group of the running try, if there is one: for a second
    /// Ctrl-C, which does not wait for the grace period. Returns whether a group was signalled.
    func killProcessesNow() -> Bool {
        guard let pid = runStateLock.withLock({ runState.running?.processIdentifier }) else { return false }
        // Each try leads its own process group, whose id is its pid. The try is forgotten as it
        // finishes, just after its child is reaped: only in that moment could the id belong to
        // someone else, and only if the system reused it at once.
        return kill(-pid, SIGKILL) == 0
    }

    /// One short reason for a failed try.
    private func describe(_ errors: [any Error]) -> String {
        for error in errors {
            if case ProcedureError.timedOut(let interval) = error { return "timed out after \(interval.formatted)s" }
        }
        for error in errors {
            switch error {
            case ProcessProcedureError.failed(_, let result):
                switch result.status {
                case .exited(let code): return "exit status \(code)"
                case .signaled: return "\(result.status)".replacingOccurrences(of: "was killed", with: "killed")
                }
            case ProcessProcedureError.executableNotFound(let name, _):
                return "cannot start: no such program: \(name)"
            case let error as ProcessProcedureError:
                return "cannot start: \(error)"
            default:
                continue
            }
        }
        return errors.first.map { "\($0)" } ?? "stopped"
    }

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        step.continueOnError ? [] : errors
    }

    /// Whether the steps this one needs let it run: a need that failed (or was skipped after a
    /// failure) fails it, a stopped one makes it stop silently.
    private func needsResult() -> ConditionResult {
        for name in step.dependencies {
            guard let outcome = context.records[name]?.outcome, !outcome.letsDependentsRun else { continue }
            if outcome == .stopped { return .ignored }
            return .failed(NeedNotDone(need: name))
        }
        return .satisfied
    }

    /// Whether the step's `when` holds; if not, the step is skipped with the first reason.
    private func whenResult() -> ConditionResult {
        let environment = self.environment
        for condition in step.when {
            if let reason = condition.evaluate(in: context, environment: environment) {
                runStateLock.withLock { runState.skipReason = reason }
                return .ignored
            }
        }
        return .satisfied
    }

    /// Whether the step is up to date: if so it is skipped (cancelled without errors) and its
    /// record says so; if not, its record says why it runs.
    private func checkUpToDate(_ tracker: UpToDateTracker, completion: @escaping @Sendable (ConditionResult) -> Void) {
        tracker.check(step, base: context.directory(of: step).path, pipelineEnvironment: context.pipeline.environment) { [self] verdict in
            switch verdict {
            case .upToDate?:
                runStateLock.withLock { runState.upToDate = true }
                completion(.ignored)
            case .outOfDate(let reason)?:
                record.runReason = reason
                completion(.satisfied)
            case nil:
                completion(.ignored)  // the run is being stopped
            }
        }
    }

    /// The error of a step whose need did not let it run (the display says why, from the records).
    private struct NeedNotDone: Error {
        let need: String
    }

    /// Once finishing: the outcome, to the record and the display.
    private func report() {
        let runState = runStateLock.withLock { self.runState }
        runState.sink?.close()
        let outcome: StepOutcome
        if let reason = runState.skipReason {
            outcome = .skipped(reason: reason)
        } else if runState.upToDate {
            outcome = .upToDate
        } else if runState.succeeded {
            outcome = .succeeded
        } else if isCancelled && context.isStopping {
            outcome = .stopped
        } else if runState.attempt == 0, let reason = failedNeed() {
            outcome = .skipped(reason: reason)
        } else {
            outcome = .failed(reason: runState.lastFailure ?? "failed", ignored: step.continueOnError)
        }
        guard record.finish(outcome) else { return }
        context.upToDate?.finished(step, outcome: outcome, started: runState.attempt > 0)
        let shown = runState.sink.flatMap { context.outputMode.shown($0.transcript, outcome: outcome, logs: context.logsDescription(for: step.name)) }
        context.display.stepFinished(record, outcome: outcome, shown: shown)
    }

    /// Why the step was not run, if a step it needs failed or was skipped because of a failure.
    private func failedNeed() -> String? {
        for name in step.dependencies {
            guard let outcome = context.records[name]?.outcome, !outcome.letsDependentsRun else { continue }
            if outcome == .stopped { return nil }  // the run was stopped: this step is stopped too
            let what = if case .skipped = outcome { "was skipped" } else { "failed" }
            return StepOutcome.dependencyFailedPrefix + "'\(name)', which \(what)"
        }
        return nil
    }
}
