import Foundation

/// What the person running the pipeline sees. Events come from any thread; each display
/// serialises its own writes.
protocol Display: AnyObject, Sendable {
    func runStarted(_ description: String)
    func stepStarted(_ record: StepRecord, attempt: Int)
    func stepWillRetry(_ record: StepRecord, failedAttempt: Int, reason: String, wait: Double)
    /// A line a step printed, as it comes (only with `--output=prefixed`).
    func stepPrinted(_ record: StepRecord, _ line: StepTranscript.Line)
    /// A step ended; `shown` is what `--output` shows of what it printed.
    func stepFinished(_ record: StepRecord, outcome: StepOutcome, shown: ShownOutput?)
    func note(_ text: String)
    /// The steps that have not started and why they wait (all of them, each time it is told).
    func stepsWaiting(_ waiting: [(record: StepRecord, text: String)])
    /// A step reported progress (`::progress`, see ``StepProgress``).
    func stepProgressed(_ record: StepRecord, fraction: Double)
    /// Ends the display (a live view stops redrawing) and prints the summary.
    func runFinished(summary: String)
}

/// "waiting 0.3 s before try 2", or "trying again" when there is no wait.
func waitingText(seconds: Double, beforeTry attempt: Int) -> String {
    guard seconds > 0 else { return "trying again" }
    let shown = seconds < 10 ? String(format: "%.1f", seconds) : String(format: "%.0f", seconds)
    return "waiting \(shown) s before try \(attempt)"
}

/// Formats seconds the way the displays show durations: 0.42s, 12.3s, 2m05s.
func formatDuration(_ seconds: TimeInterval) -> String {
    if seconds < 10 { return String(format: "%.2fs", seconds) }
    if seconds < 60 { return String(format: "%.1fs", seconds) }
    let whole = Int(seconds.rounded())
    return String(format: "%dm%02ds", whole / 60, whole % 60)
}

extension StepRecord {
    /// "✓ build  0.42s (2 tries)", the line a finished step gets.
    func finishedLine(_ outcome: StepOutcome) -> String {
        let snapshot = self.snapshot
        var line = "\(outcome.symbol) \(step.name)"
        if let duration = snapshot.duration { line += "  " + formatDuration(duration) }
        if snapshot.attempt > 1 { line += "  (\(snapshot.attempt) tries)" }
        switch outcome {
        case .failed(let reason, let ignored): line += "  " + reason + (ignored ? " (continuing: continueOnError)" : "")
        case .skipped(let reason): line += "  skipped: " + reason
        case .upToDate: line += "  up to date"
        case .stopped: line += "  stopped"
        case .succeeded: break
        }
        return line
    }
}

/// Plain lines with a wall-clock time stamp, for logs and pipes.
final class PlainDisplay: Display, @unchecked Sendable {
    // @unchecked: writes are serialised by `lock`; `formatter` is only used under it.
    private let lock = NSLock()
    private let prefix: OutputPrefix
    private let write: @Sendable (String) -> Void
    /// What each waiting step's line last said, so that only changes are printed.
    private var lastWaiting: [ObjectIdentifier: String] = [:]
    /// The percentage last printed for each step, and when.
    private var lastProgress: [ObjectIdentifier: (percent: Int, at: Date)] = [:]

    /// `names`: the steps, for the width of `--output=prefixed`'s prefix; `write`: where the
    /// text goes (standard output).
    init(names: [String] = [], write: @escaping @Sendable (String) -> Void = Output.write) {
        prefix = OutputPrefix(names: names, styled: false)
        self.write = write
    }
    private let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter
    }()

    private func line(_ text: String) {
        lock.withLock { write(formatter.string(from: Date()) + "  " + text + "\n") }
    }

    func runStarted(_ description: String) { line(description) }

    func stepStarted(_ record: StepRecord, attempt: Int) {
        let why = attempt == 1 ? record.runReason.map { " (out of date: \($0))" } ?? "" : ""
        line("start \(record.step.name)" + (attempt > 1 ? " (try \(attempt) of \(record.step.attempts))" : why))
    }

    func stepWillRetry(_ record: StepRecord, failedAttempt: Int, reason: String, wait: Double) {
        line("retry \(record.step.name): try \(failedAttempt) \(reason); " + waitingText(seconds: wait, beforeTry: failedAttempt + 1))
    }

    func stepPrinted(_ record: StepRecord, _ printed: StepTranscript.Line) {
        // As the step printed it, without a time stamp (the step may print its own).
        lock.withLock { write(prefix.apply(record.step.name, printed) + "\n") }
    }

    func stepFinished(_ record: StepRecord, outcome: StepOutcome, shown: ShownOutput?) {
        line(([record.finishedLine(outcome)] + (shown?.rendered(styled: false) ?? [])).joined(separator: "\n"))
    }

    func note(_ text: String) { line(text) }

    func stepsWaiting(_ waiting: [(record: StepRecord, text: String)]) {
        let changed = lock.withLock { () -> [String] in
            var current: [ObjectIdentifier: String] = [:]
            var changed: [String] = []
            for (record, text) in waiting {
                let id = ObjectIdentifier(record)
                current[id] = text
                if lastWaiting[id] != text { changed.append("wait \(record.step.name): \(text)") }
            }
            lastWaiting = current
            return changed
        }
        for text in changed { line(text) }
    }

    func stepProgressed(_ record: StepRecord, fraction: Double) {
        let percent = Int((fraction * 100).rounded(.down))
        let show = lock.withLock { () -> Bool in
            let id = ObjectIdentifier(record)
            let now = Date()
            // At most a line a second per step (and always the last one), so a step may report often.
            if let last = lastProgress[id], last.percent == percent || (percent < 100 && now.timeIntervalSince(last.at) < 1) {
                return false
            }
            lastProgress[id] = (percent, now)
            return true
        }
        if show { line("progress \(record.step.name) \(percent)%") }
    }

    func runFinished(summary: String) {
        lock.withLock { write("\n" + summary) }
    }
}
