import Foundation

/// The table printed at the end of a run.
enum Summary {
    static func render(_ records: [StepRecord], elapsed: TimeInterval, logDirectory: String, stop: PipelineRun.StopReason?) -> String {
        let nameWidth = max(4, min(32, records.map(\.step.name.count).max() ?? 0))
        var text = "step".rightPadded(to: nameWidth) + "  result             tries  time\n"
        var counts: [String: Int] = [:]
        for record in records {
            let snapshot = record.snapshot
            let outcome = snapshot.outcome ?? .stopped
            counts[outcome.word, default: 0] += 1
            let result = "\(outcome.symbol) \(outcome.word)".rightPadded(to: 18)
            let tries = snapshot.attempt > 0 ? String(snapshot.attempt) : "-"
            let time = snapshot.duration.map(formatDuration) ?? "-"
            text += record.step.name.rightPadded(to: nameWidth) + "  " + result + " " + tries.leftPadded(to: 5) + "  " + time + "\n"
        }
        let order = ["ok", "up to date", "failed", "failed (ignored)", "skipped", "stopped"]
        let parts = order.compactMap { word in counts[word].map { "\($0) \(word == "ok" ? "succeeded" : word)" } }
        var verdict: String
        if let stop {
            verdict = stop.verdict
        } else {
            verdict = records.contains { $0.outcome?.failsPipeline ?? false } ? "Failed" : "Succeeded"
        }
        verdict += " in \(formatDuration(elapsed)): " + parts.joined(separator: ", ") + ".\nLogs: \(logDirectory)\n"
        return text + verdict
    }
}
