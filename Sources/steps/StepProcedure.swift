import Foundation
import Procedures

/// One step of the pipeline: a group whose children are the step's tries (a process each)
/// and the waits between them. It reports what it does to the run's display.
final class StepProcedure: GroupProcedure, @unchecked Sendable {
    // @unchecked: `progress` is guarded by `progressLock`; `step`, `record` and `context` are immutable.
    let step: Step
    let record: StepRecord
    private let context: RunContext
    private let progressLock = NSLock()
    private struct Progress {
        var attempt = 0
        var lastFailure: String?
        var succeeded = false
        var skipReason: String?
        var log: FileHandle?
        var exclusivity: InterimExclusivityWait?
    }
    private var progress = Progress()

    init(step: Step, context: RunContext) {
        self.step = step
        self.context = context
        record = context.records[step.name]!
        super.init()
        name = step.name
        // Will-finish: the outcome must be recorded before the steps that need this one are released.
        addWillFinishBlockObserver { step, _ in step.report() }
    }

    private var environment: [String: String] { context.baseEnvironment.merging(step.environment) { $1 } }

    override func execute() {
        if let reason = skipReason() {
            progressLock.withLock { progress.skipReason = reason }
            super.execute()  // no children: the group finishes at once
            return
        }
        let log: FileHandle
        do {
            let url = context.logURL(for: step.name)
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            log = try FileHandle(forWritingTo: url)
        } catch {
            progressLock.withLock { progress.lastFailure = "cannot write its log: \((error as NSError).localizedDescription)" }
            super.execute()
            return
        }
        var first: [Operation] = []
        let wait = step.exclusive.isEmpty ? nil : InterimExclusivityWait(categories: Set(step.exclusive), registry: context.exclusivity)
        progressLock.withLock {
            progress.log = log
            progress.exclusivity = wait
        }
        let attempt = makeAttempt(1, log: log)
        if let wait {
            attempt.addDependency(wait)
            first.append(wait)
        }
        first.append(attempt)
        addChildren(first)
        super.execute()
    }

    /// Why the step does not run (a step it needs did not succeed, or its condition does not hold), or nil.
    private func skipReason() -> String? {
        for name in step.dependencies {
            guard let outcome = context.records[name]?.outcome else { continue }
            if !outcome.letsDependentsRun {
                return StepOutcome.dependencyFailedPrefix + "'\(name)', which " + (outcome == .stopped ? "was stopped" : outcome.word == "skipped" ? "was skipped" : "failed")
            }
        }
        let environment = self.environment
        for condition in step.when {
            if let reason = condition.evaluate(in: context, environment: environment) { return reason }
        }
        return nil
    }

    private func makeAttempt(_ number: Int, log: FileHandle) -> InterimProcessProcedure {
        let (executable, arguments) = resolveCommand()
        let attempt = InterimProcessProcedure(
            executable: executable, arguments: arguments, environment: environment,
            workingDirectory: step.workingDirectory.map(context.resolve) ?? context.pipeline.directory, output: log)
        if case .argv(let words) = step.command, !words[0].contains("/") { attempt.name = words[0] }
        attempt.addWillExecuteBlockObserver { [self] attempt in
            progressLock.withLock { progress.attempt = number }
            if number > 1 { log.write(Data(StepLog.marker(attempt: number, of: step.attempts).utf8)) }
            record.attemptStarted(number)
            context.display.stepStarted(record, attempt: number)
            if let timeout = step.timeout {
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak attempt] in
                    attempt?.cancel(withError: ProgramFailure.timedOut(after: timeout))
                }
            }
        }
        attempt.addDidFinishBlockObserver { [self] _, errors in
            if errors.isEmpty { progressLock.withLock { progress.succeeded = true } }
        }
        return attempt
    }

    private func resolveCommand() -> (URL, [String]) {
        switch step.command {
        case .shell(let command):
            return (URL(fileURLWithPath: "/bin/sh"), ["-c", command])
        case .argv(let words):
            return (Self.lookUp(words[0], path: environment["PATH"]), Array(words.dropFirst()))
        }
    }

    /// A program named without a slash is looked up in `PATH`, as a shell would.
    static func lookUp(_ program: String, path: String?) -> URL {
        if program.contains("/") { return URL(fileURLWithPath: program) }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: program)
    }

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        guard child is InterimProcessProcedure else { return errors }
        let failures = errors.compactMap { $0 as? ProgramFailure }
        let reason = (failures.first { if case .timedOut = $0 { true } else { false } } ?? failures.first)?.description
            ?? errors.first.map { "\($0)" } ?? "failed"
        let (attempt, log) = progressLock.withLock { () -> (Int, FileHandle?) in
            progress.lastFailure = reason
            return (progress.attempt, progress.log)
        }
        if attempt < step.attempts, !isCancelled, let log {
            let wait = step.retry?.wait(before: attempt + 1) ?? 0
            context.display.stepWillRetry(record, failedAttempt: attempt, reason: reason, wait: wait)
            let next = makeAttempt(attempt + 1, log: log)
            if wait > 0 {
                let pause = DelayProcedure(by: wait)
                next.addDependency(pause)
                addChildren([pause, next])
            } else {
                addChild(next)
            }
            return []
        }
        return step.continueOnError ? [] : errors
    }

    /// Once finished: the outcome, to the record and the display; the exclusivity released.
    private func report() {
        let progress = progressLock.withLock { self.progress }
        if let wait = progress.exclusivity, wait.isGranted { context.exclusivity.release(wait.categories) }
        try? progress.log?.close()
        let outcome: StepOutcome
        if let reason = progress.skipReason {
            outcome = .skipped(reason: reason)
        } else if progress.succeeded {
            outcome = .succeeded
        } else if isCancelled && (progress.lastFailure == nil || progress.attempt < step.attempts) {
            outcome = .stopped
        } else {
            outcome = .failed(reason: progress.lastFailure ?? "failed", ignored: step.continueOnError)
        }
        guard record.finish(outcome) else { return }
        let failed: Bool = if case .failed = outcome { true } else { false }
        let logURL = context.logURL(for: step.name)
        context.display.stepFinished(record, outcome: outcome, logTail: failed ? StepLog.tail(at: logURL) : [], logPath: logURL.path)
    }
}
