import Foundation
import Procedures

/// `--trace`: the profiler's Chrome trace, with how each step ended under
/// `otherData.steps` (`{"build": {"outcome": "up to date"}, …}`): a step skipped by its
/// `when` and one that was up to date are both cancelled procedures in the trace itself,
/// and the timeline (scripts/render-trace.py) draws them apart.
enum StepTrace {
    /// A trace that could not be written, worded as the library's `TraceFileError`.
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write the trace file \(path): \(reason)" }
    }

    static func write(_ trace: ChromeTrace, records: [StepRecord], to url: URL) throws {
        guard var document = try JSONSerialization.jsonObject(with: trace.jsonData()) as? [String: Any] else {
            throw Failure(path: url.path, reason: "the profiler's trace is not a JSON object")
        }
        var steps: [String: Any] = [:]
        for record in records {
            guard let outcome = record.outcome else { continue }
            var entry: [String: Any] = ["outcome": outcome.word]
            switch outcome {
            case .skipped(let reason), .failed(let reason, _): entry["reason"] = reason
            default: break
            }
            steps[record.step.name] = entry
        }
        var other = document["otherData"] as? [String: Any] ?? [:]
        other["steps"] = steps
        document["otherData"] = other
        do {
            try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(to: url, options: .atomic)
        } catch {
            throw Failure(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }
}
