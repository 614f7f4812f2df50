import Foundation
import ProceduresTestSupport
@testable import StepsCore

/// A display that keeps every event of a run as a line, for tests of the run in process.
final class RecordingDisplay: Display, Sendable {
    private let recorded = LockedBox<[String]>([])
    private let summary = LockedBox<String?>(nil)

    var events: [String] { recorded.value }
    var finalSummary: String? { summary.value }

    private func record(_ event: String) { recorded.mutate { $0.append(event) } }

    func runStarted(_ description: String) { record("started: \(description)") }
    func stepStarted(_ record: StepRecord, attempt: Int) { self.record("start \(record.step.name) try \(attempt)") }
    func stepWillRetry(_ record: StepRecord, failedAttempt: Int, reason: String, wait: Double) {
        self.record("retry \(record.step.name) after try \(failedAttempt): \(reason)")
    }
    func stepPrinted(_ record: StepRecord, _ line: StepTranscript.Line) { self.record("\(record.step.name) | \(line.text)") }
    func stepFinished(_ record: StepRecord, outcome: StepOutcome, shown: ShownOutput?) {
        self.record("finished \(record.step.name): \(outcome.word)")
    }
    func note(_ text: String) { record("note: \(text)") }
    func stepsWaiting(_ waiting: [(record: StepRecord, text: String)]) {
        for (record, text) in waiting { self.record("wait \(record.step.name): \(text)") }
    }
    func stepProgressed(_ record: StepRecord, fraction: Double) {
        self.record("progress \(record.step.name) \(Int((fraction * 100).rounded()))%")
    }
    func runFinished(summary: String) { self.summary.mutate { $0 = summary } }
}
