import Foundation

/// What every step of one run shares.
final class RunContext: @unchecked Sendable {
    // @unchecked: `stopping` is guarded by `lock`; everything else is immutable.
    let pipeline: Pipeline
    let logDirectory: URL
    let display: any Display
    /// Each step's record, by name.
    let records: [String: StepRecord]
    /// The environment every step starts from: this process's, then the pipeline's `env`.
    let baseEnvironment: [String: String]
    /// Seconds between SIGTERM and SIGKILL when a try is stopped (`--grace`).
    let gracePeriod: TimeInterval
    /// Decides which steps with `sources` are up to date (nil: every step runs).
    let upToDate: UpToDateTracker?
    /// What the terminal shows of what steps print.
    let outputMode: OutputMode
    /// Whether standard output is a terminal: what steps print is then shown escaped (``TerminalText``).
    let showsOnTerminal: Bool
    /// Said after the log directory in the summary: that it goes at exit (the bundled example's).
    let logDirectoryNote: String?

    private let lock = NSLock()
    private var stopping = false

    /// Whether the run is being stopped (Ctrl-C, `--timeout`): what is cancelled from now on was stopped, not failed.
    var isStopping: Bool {
        get { lock.withLock { stopping } }
        set { lock.withLock { stopping = newValue } }
    }

    init(
        pipeline: Pipeline, logDirectory: URL, display: any Display, gracePeriod: TimeInterval = 2,
        upToDate: UpToDateTracker? = nil, outputMode: OutputMode = .failed, showsOnTerminal: Bool = false,
        logDirectoryNote: String? = nil
    ) {
        self.pipeline = pipeline
        self.showsOnTerminal = showsOnTerminal
        self.logDirectoryNote = logDirectoryNote
        self.upToDate = upToDate
        self.outputMode = outputMode
        self.gracePeriod = gracePeriod
        self.logDirectory = logDirectory
        self.display = display
        records = Dictionary(uniqueKeysWithValues: pipeline.steps.map { ($0.name, StepRecord(step: $0)) })
        baseEnvironment = ProcessInfo.processInfo.environment.merging(pipeline.environment) { $1 }
    }

    /// A step's standard output, every try.
    func logURL(for step: String) -> URL {
        logDirectory.appendingPathComponent(step + ".log")
    }

    /// A step's standard error, every try.
    func errorLogURL(for step: String) -> URL {
        logDirectory.appendingPathComponent(step + ".err.log")
    }

    /// Where a step's logs are, in a few words.
    func logsDescription(for step: String) -> String {
        "\(logURL(for: step).path), \(step).err.log"
    }

    /// The directory a step runs in, and that its `sources` and `generates` are relative to.
    func directory(of step: Step) -> URL { pipeline.directory(of: step) }

    /// A path from the pipeline file, relative to its directory.
    func resolve(_ path: String) -> URL { pipeline.resolve(path) }
}

/// The logs of a step (standard output in one, standard error in the other): every try's
/// lines, a marker line before each try after the first, in both.
enum StepLog {
    static func marker(attempt: Int, of attempts: Int) -> String { "── steps: try \(attempt) of \(attempts) ──\n" }

    /// The standard output (or error) of the step's last try.
    static func lastAttemptOutput(at url: URL) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        let text = String(decoding: data, as: UTF8.self)
        guard let marker = text.range(of: "── steps: try ", options: .backwards),
            let lineEnd = text[marker.upperBound...].firstIndex(of: "\n")
        else { return text }
        return String(text[text.index(after: lineEnd)...])
    }

}

extension Step.Condition {
    /// Whether the condition holds now; if not, why.
    func evaluate(in context: RunContext, environment: [String: String]) -> String? {
        switch self {
        case .exists(let path):
            return FileManager.default.fileExists(atPath: context.resolve(path).path) ? nil : "\(path) does not exist"
        case .environment(let name):
            return (environment[name].map { !$0.isEmpty } ?? false) ? nil : "$\(name) is not set"
        case .output(let step, let pattern):
            let output = StepLog.lastAttemptOutput(at: context.logURL(for: step))
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return "/\(pattern)/ is not a valid pattern" }
            let range = NSRange(output.startIndex..., in: output)
            return regex.firstMatch(in: output, range: range) != nil ? nil : "the output of \(step) does not match /\(pattern)/"
        }
    }
}
