import Foundation

/// The terminal view: finished steps scroll up above a block that shows every running step
/// with its elapsed time (and a bar if it reports progress), then every waiting step with why,
/// redrawn ten times a second; the summary replaces the block at the end.
final class LiveDisplay: Display, @unchecked Sendable {
    // @unchecked: `running`, `waiting`, `ran`, `drawnLines`, `finishedCount` and `stopped` are
    // guarded by `lock`, which also serialises every write to the terminal.
    private let lock = NSLock()
    private let total: Int
    /// Steps run at once, for the estimate of the time left.
    private let jobs: Int
    /// The waiting steps and why, in pipeline order.
    private var waiting: [(name: String, text: String)] = []
    /// How many finished steps ran, and their total running time (for the estimate).
    private var ran = (count: 0, seconds: 0.0)
    private let startTime = Date()
    private var running: [ObjectIdentifier: StepRecord] = [:]
    private var order: [ObjectIdentifier] = []
    private var drawnLines = 0
    private var finishedCount = 0
    private var stopped = false
    private var frame = 0
    /// `--output=prefixed` lines not yet printed: printed above the block on the next frame,
    /// so that a chatty step costs one redraw per frame, not one per line.
    private var printed: [String] = []
    private let prefix: OutputPrefix
    private let timer: any DispatchSourceTimer

    private static let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    init(total: Int, jobs: Int = 1, names: [String] = []) {
        self.total = total
        self.jobs = max(1, jobs)
        prefix = OutputPrefix(names: names, styled: true)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "steps.live-display"))
        timer.schedule(deadline: .now() + 0.1, repeating: 0.1, leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    private func tick() {
        lock.withLock {
            guard !stopped else { return }
            frame += 1
            redraw(printingAbove: takePrinted())
        }
    }

    /// The lines waiting to be printed, emptied. Called under `lock`.
    private func takePrinted() -> [String] {
        defer { printed.removeAll(keepingCapacity: true) }
        return printed
    }

    /// The terminal's columns and rows (80 x 24 if it cannot say).
    private var size: (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 10, size.ws_row > 3 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Moves to the top of the block, prints `lines` there (they stay), then draws the block anew.
    /// Called under `lock`.
    private func redraw(printingAbove lines: [String]) {
        var text = drawnLines > 0 ? "\r\u{1B}[\(drawnLines)A\u{1B}[J" : "\r\u{1B}[J"
        for line in lines { text += line + "\n" }
        let (columns, rows) = size
        var block: [String] = []
        if !stopped {
            let overall = overallLine()
            block.append(clip("\u{1B}[2m\(overall)\u{1B}[0m", visible: overall, columns))
            let spin = Self.spinner[frame % Self.spinner.count]
            // The block must fit on the screen, or moving up to its top would fall short.
            let room = max(1, rows - 3)
            let shown = order.count > room ? order.prefix(room - 1) : order[...]
            for id in shown {
                guard let record = running[id] else { continue }
                let snapshot = record.snapshot
                if let waiting = snapshot.waiting {
                    // Waiting out its back-off: no spinner, the time left.
                    let left = max(0, waiting.until.timeIntervalSinceNow)
                    let text = "\(record.step.name)  \(formatDuration(snapshot.duration ?? 0))  \(waitingText(seconds: max(left, 0.05), beforeTry: waiting.beforeTry))"
                    block.append(clip("\u{1B}[33m…\u{1B}[0m " + text, visible: "… " + text, columns))
                    continue
                }
                var tries = snapshot.attempt > 1 ? "  (try \(snapshot.attempt) of \(record.step.attempts))" : ""
                if let fraction = record.progress { tries += "  " + StepProgress.bar(fraction) }
                let plain = "\(spin) \(record.step.name)  \(formatDuration(snapshot.duration ?? 0))\(tries)"
                block.append(clip("\u{1B}[36m\(spin)\u{1B}[0m \(record.step.name)  \(formatDuration(snapshot.duration ?? 0))\(tries)", visible: plain, columns))
            }
            if shown.count < order.count { block.append("  … and \(order.count - shown.count) more running") }
            let waitingRoom = max(0, room - block.count)
            for entry in waiting.prefix(waitingRoom) {
                let text = "· \(entry.name)  \(entry.text)"
                block.append(clip("\u{1B}[2m\(text)\u{1B}[0m", visible: text, columns))
            }
        }
        for line in block { text += line + "\n" }
        drawnLines = block.count
        Output.write(text)
    }

    /// "3/10 done, 2 running, 4.2s, about 12s left": the estimate (the mean time of the
    /// steps that ran, times the steps left, over the jobs) once a step has finished. Under `lock`.
    private func overallLine() -> String {
        let elapsed = Date().timeIntervalSince(startTime)
        var line = "\(finishedCount)/\(total) done, \(running.count) running, \(formatDuration(elapsed))"
        let left = total - finishedCount
        if ran.count > 0 && left > 0 {
            line += ", about \(formatDuration(ran.seconds / Double(ran.count) * Double(left) / Double(jobs))) left"
        }
        return line
    }

    /// A block line must not wrap, or moving up by the number of lines would miss.
    private func clip(_ styled: String, visible: String, _ columns: Int) -> String {
        visible.count < columns ? styled : String(visible.prefix(columns - 1))
    }

    private func colored(_ outcome: StepOutcome, _ line: String) -> String {
        let color: String
        switch outcome {
        case .succeeded: color = "32"
        case .failed(_, let ignored): color = ignored ? "33" : "31"
        case .skipped: color = "2"
        case .upToDate: color = "34"
        case .stopped: color = "33"
        }
        return "\u{1B}[\(color)m\(line.prefix(1))\u{1B}[0m\(line.dropFirst())"
    }

    func runStarted(_ description: String) {
        lock.withLock { redraw(printingAbove: takePrinted() + [description]) }
    }

    func stepStarted(_ record: StepRecord, attempt: Int) {
        lock.withLock {
            let id = ObjectIdentifier(record)
            if running[id] == nil { order.append(id) }
            running[id] = record
            redraw(printingAbove: takePrinted())
        }
    }

    func stepWillRetry(_ record: StepRecord, failedAttempt: Int, reason: String, wait: Double) {
        let text = "\u{1B}[33m↻\u{1B}[0m \(record.step.name)  try \(failedAttempt) \(reason), " + waitingText(seconds: wait, beforeTry: failedAttempt + 1)
        lock.withLock { redraw(printingAbove: takePrinted() + [text]) }
    }

    func stepPrinted(_ record: StepRecord, _ line: StepTranscript.Line) {
        let text = prefix.apply(record.step.name, line)
        lock.withLock { printed.append(text) }
    }

    func stepFinished(_ record: StepRecord, outcome: StepOutcome, shown: ShownOutput?) {
        let lines = [colored(outcome, record.finishedLine(outcome))] + (shown?.rendered(styled: true) ?? [])
        lock.withLock {
            let id = ObjectIdentifier(record)
            if running.removeValue(forKey: id) != nil { order.removeAll { $0 == id } }
            finishedCount += 1
            if let duration = record.snapshot.duration {
                ran.count += 1
                ran.seconds += duration
            }
            // What the step printed comes before the line that says it ended.
            redraw(printingAbove: takePrinted() + lines)
        }
    }

    func note(_ text: String) {
        lock.withLock { redraw(printingAbove: takePrinted() + ["\u{1B}[33m" + text + "\u{1B}[0m"]) }
    }

    func stepsWaiting(_ waiting: [(record: StepRecord, text: String)]) {
        lock.withLock { self.waiting = waiting.map { ($0.record.step.name, $0.text) } }
    }

    /// Drawn with the next frame.
    func stepProgressed(_ record: StepRecord, fraction: Double) {}

    func runFinished(summary: String) {
        timer.cancel()
        lock.withLock {
            stopped = true
            redraw(printingAbove: takePrinted() + [""])
            Output.write(summary)
        }
    }
}
