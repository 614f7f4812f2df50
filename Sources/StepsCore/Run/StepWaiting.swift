import Foundation
import Procedures

/// Why steps that have not started wait, in the words of a pipeline ("waiting for
/// fetch-deps"; "waiting for database, held by migrate-db"), from `Procedure.waitingReason`.
enum StepWaiting {
    /// What a step waiting for `reason` shows; nil for the moments that need no explaining
    /// (its conditions being checked, about to start).
    static func text(_ reason: WaitingReason) -> String? {
        switch reason {
        case .dependencies(let operations):
            return "waiting for " + operations.map(name(of:)).joined(separator: ", ")
        case .exclusivity(let category, let holder):
            return "waiting for \(category)" + (holder.map { ", held by \(name(of: $0))" } ?? "")
        case .queueFull(let width):
            return "waiting for a free job (\(width) running)"
        case .slotAgain(let width?):
            return "waiting for a free job (\(width) running)"
        case .clock:
            return "waiting"
        case .condition, .conditionDependencies, .suspended, .starting, .children, .slotAgain(nil):
            return nil
        }
    }

    private static func name(of operation: Operation) -> String {
        (operation as? StepProcedure)?.step.name ?? operation.name ?? "?"
    }

    /// The steps that wait, with why.
    static func waiting(_ steps: [StepProcedure]) -> [(record: StepRecord, text: String)] {
        steps.compactMap { step in
            guard step.record.outcome == nil, let reason = step.waitingReason, let text = text(reason) else { return nil }
            return (step.record, text)
        }
    }

    /// `--explain`: every unfinished step, one line each, with what it does or waits for.
    static func explanation(_ steps: [StepProcedure]) -> String {
        var lines: [String] = []
        for step in steps where step.record.outcome == nil {
            let snapshot = step.record.snapshot
            let what: String
            if let waiting = snapshot.waiting {
                what = waitingText(seconds: max(0.05, waiting.until.timeIntervalSinceNow), beforeTry: waiting.beforeTry)
            } else if snapshot.started != nil {
                what = "running \(formatDuration(snapshot.duration ?? 0))" + (step.record.progress.map { ", " + StepProgress.percent($0) } ?? "")
            } else if let reason = step.waitingReason {
                what = text(reason) ?? "\(reason)"
            } else {
                what = "not started"
            }
            lines.append("  \(step.step.name): \(what)")
        }
        return "Unfinished steps (\(lines.count)):" + (lines.isEmpty ? "" : "\n" + lines.joined(separator: "\n"))
    }
}
