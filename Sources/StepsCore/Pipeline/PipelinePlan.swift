import Foundation

/// The order steps can run in, for `--dry-run`.
struct PipelinePlan {
    /// Each step with its stage: 1 for steps that need nothing, else one more than the
    /// latest stage among the steps it needs.
    let stages: [(step: Step, stage: Int)]
    /// The steps in the order of the file.
    let steps: [Step]

    init(_ pipeline: Pipeline) {
        steps = pipeline.steps
        // The pipeline has no cycle (checked when it was read): a depth-first walk that
        // settles each step once, after every step it waits for, each edge followed once.
        let index = Dictionary(pipeline.steps.enumerated().map { ($1.name, $0) }) { first, _ in first }
        let edges = pipeline.steps.map { $0.dependencies.compactMap { index[$0] } }
        var depth = [Int](repeating: 0, count: pipeline.steps.count)
        for start in pipeline.steps.indices where depth[start] == 0 {
            var path: [(node: Int, next: Int)] = [(start, 0)]
            while let top = path.last {
                if top.next < edges[top.node].count {
                    path[path.count - 1].next += 1
                    let target = edges[top.node][top.next]
                    if depth[target] == 0 { path.append((target, 0)) }
                } else {
                    depth[top.node] = 1 + (edges[top.node].lazy.map { depth[$0] }.max() ?? 0)
                    path.removeLast()
                }
            }
        }
        // Positions are sorted rather than steps, which are large to move.
        stages = pipeline.steps.indices
            .sorted { (depth[$0], $0) < (depth[$1], $1) }
            .map { (pipeline.steps[$0], depth[$0]) }
    }

    /// The plan as `--dry-run` prints it.
    func render(jobs: Int) -> String {
        let width = min(28, stages.map(\.step.name.count).max() ?? 0)
        var text = "Plan: \(stages.count) step(s), at most \(jobs) at a time; each stage starts once the steps it needs have succeeded.\n"
        let indent = String(repeating: " ", count: 9 + width)  // under the command, for names that fit
        for (step, stage) in stages {
            var details: [String] = []
            let dependencies = step.dependencies
            if !dependencies.isEmpty { details.append("needs " + dependencies.joined(separator: ", ")) }
            if let retry = step.retry, retry.attempts > 1 {
                details.append("retry \(retry.attempts)x" + (retry.backoff > 0 ? " (back-off \(retry.backoff.formatted)s)" : ""))
            }
            if let timeout = step.timeout { details.append("timeout \(timeout.formatted)s") }
            if !step.exclusive.isEmpty { details.append("exclusive " + step.exclusive.joined(separator: ", ")) }
            for condition in step.when { details.append("when " + condition.summary) }
            if step.continueOnError { details.append("continue on error") }
            if let sources = step.sources {
                details.append("sources " + (sources.patterns.isEmpty ? "none (needs only)" : sources.patterns.map(\.text).joined(separator: ", ")))
            }
            if let generates = step.generates, !generates.patterns.isEmpty {
                details.append("generates " + generates.patterns.map(\.text).joined(separator: ", "))
            }
            // Appended piece by piece: a plan can have 100,000 lines.
            text += "  "
            text += String(stage).leftPadded(to: 3)
            text += "  "
            text += step.name.rightPadded(to: width)
            text += "  $ "
            text += step.commandLine
            text += "\n"
            if !details.isEmpty {
                text += step.name.utf8.count <= width ? indent : String(repeating: " ", count: 9 + step.name.count)
                text += details.joined(separator: " · ")
                text += "\n"
            }
        }
        return text
    }
}

extension Step.Condition {
    var summary: String {
        switch self {
        case .exists(let path): return "\(path) exists"
        case .environment(let name): return "$\(name) is set"
        case .output(let step, let pattern): return "output of \(step) matches /\(pattern)/"
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
