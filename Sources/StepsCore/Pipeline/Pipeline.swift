import Foundation

/// A pipeline, validated: steps with unique names whose `needs` name other steps and form no
/// cycle. Built by ``PipelineFile``; the runner and the planner only ever see a valid one.
struct Pipeline: Sendable {
    /// The steps, in the order of the file.
    var steps: [Step]
    /// The directory that relative paths (`cwd`, `when.exists`) are resolved against.
    var directory: URL
    /// The pipeline's own default for `--jobs`.
    var jobs: Int?
    /// Environment added to every step (a step's own `env` wins).
    var environment: [String: String]

    func step(named name: String) -> Step? { steps.first { $0.name == name } }

    /// A path from the pipeline file, relative to its directory.
    func resolve(_ path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    }

    /// The directory a step runs in, and that its `sources` and `generates` are relative to.
    func directory(of step: Step) -> URL {
        step.workingDirectory.map(resolve) ?? directory
    }
}

/// One step of a pipeline.
struct Step: Sendable {
    enum Command: Sendable, Equatable {
        /// Run by `/bin/sh -c`.
        case shell(String)
        /// Run directly: the first element is the program (looked up in `PATH`), the rest its arguments.
        case argv([String])
    }

    /// How a failed step is tried again.
    struct Retry: Sendable, Equatable {
        /// Tries in all, the first included (at least 1).
        var attempts: Int
        /// Seconds to wait before the second try; each later wait doubles, up to `maxBackoff`.
        var backoff: Double
        /// The longest wait between two tries.
        var maxBackoff: Double
    }

    /// What must hold for the step to run; otherwise it is skipped (and counts as done for
    /// the steps that need it).
    enum Condition: Sendable, Equatable {
        /// A file or directory exists (relative to the pipeline's directory).
        case exists(String)
        /// An environment variable is set to a non-empty value.
        case environment(String)
        /// The output of an earlier step (its last try) matches a regular expression.
        case output(step: String, matches: String)
    }

    var name: String
    var command: Command
    var needs: [String] = []
    var retry: Retry?
    /// Seconds each try may take before it is stopped and counts as failed.
    var timeout: Double?
    /// Categories of which at most one step runs at a time.
    var exclusive: [String] = []
    /// Every condition must hold for the step to run.
    var when: [Condition] = []
    /// A failure of this step is shown but does not fail the pipeline, nor stop the steps that need it.
    var continueOnError = false
    var environment: [String: String] = [:]
    /// The working directory, relative to the pipeline's directory.
    var workingDirectory: String?
    /// The files the step reads (relative to its working directory): with them, it is skipped
    /// while it is up to date (see ``UpToDateTracker``); without, it always runs.
    var sources: GlobPatternList?
    /// The files it makes: it is not up to date while one is missing.
    var generates: GlobPatternList?

    /// Every step this one waits for: its `needs` and the steps its conditions read.
    var dependencies: [String] {
        if when.isEmpty { return needs }
        var all = needs
        for case .output(let step, _) in when where !all.contains(step) { all.append(step) }
        return all
    }

    var attempts: Int { retry?.attempts ?? 1 }

    /// The command as one line, for plans and logs.
    var commandLine: String {
        switch command {
        case .shell(let text): return text
        case .argv(let words): return words.map(Self.quoted).joined(separator: " ")
        }
    }

    private static func quoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
