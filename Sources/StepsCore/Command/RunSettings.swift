import Foundation

/// What a run of a checked pipeline needs from the command line and this machine, checked
/// before anything runs: how many steps at once, where the logs go (a directory that can be
/// made), the trace's and the graph's files (writable), and the steps `--force` names (real).
struct RunSettings: Sendable {
    let options: Options
    let pipeline: Pipeline
    let jobs: Int
    let logDirectory: URL
    /// Whether standard output is a terminal (not a dumb one).
    let terminal: Bool

    init(options: Options, pipeline: Pipeline, terminal: Bool) throws(StepsError) {
        self.options = options
        self.pipeline = pipeline
        self.terminal = terminal
        jobs = options.jobs ?? pipeline.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        logDirectory = URL(fileURLWithPath: options.logDirectory ?? pipeline.directory.appendingPathComponent(".steps/logs").path)
        if case .named(let names) = options.forced {
            let known = Set(pipeline.steps.map(\.name))
            for name in names.sorted() where !known.contains(name) {
                let hint = PipelineFile.closest(to: name, among: pipeline.steps.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                throw .usage("--force \(name): no step is named '\(name)'\(hint)")
            }
        }
        let unwritable = [
            options.tracePath.flatMap { path in OutputPath.problemWritingFile(at: path).map { "cannot write the trace to \(path): \($0)" } },
            options.graphPath.flatMap { path in OutputPath.problemWritingFile(at: path).map { "cannot write the graph to \(path): \($0)" } },
            OutputPath.problemWritingDirectory(at: logDirectory.path).map { "cannot create the log directory \(logDirectory.path): \($0)" },
        ].compactMap { $0 }
        if !unwritable.isEmpty { throw .refused(unwritable) }
    }

    /// Makes the log directory (checked, it can still fail: a disk filled meanwhile).
    func createLogDirectory() throws(StepsError) {
        if let problem = OutputPath.createDirectory(at: logDirectory.path) {
            throw .refused(["cannot create the log directory \(logDirectory.path): \(problem)"])
        }
    }

    /// A new run, with its own display, up-to-date state and records (`--watch` makes one
    /// after another). `--force` is for the first run only: the others run because something
    /// changed.
    func makeRun(first: Bool) -> PipelineRun {
        let names = pipeline.steps.map(\.name)
        let live = !options.plain && terminal
        let display: any Display = live ? LiveDisplay(total: pipeline.steps.count, jobs: jobs, names: names) : PlainDisplay(names: names)
        let upToDate = UpToDateTracker(
            stateURL: UpToDateTracker.stateURL(for: options.pipelinePath ?? "demo.json", directory: pipeline.directory),
            forced: first ? options.forced : .none)
        let context = RunContext(
            pipeline: pipeline, logDirectory: logDirectory, display: display, gracePeriod: options.gracePeriod, upToDate: upToDate,
            outputMode: options.output ?? .automatic(onTerminal: terminal),
            // A dumb terminal, or --plain, still takes control characters.
            showsOnTerminal: terminal || isatty(STDOUT_FILENO) == 1, logDirectoryNote: logDirectoryNote)
        return PipelineRun(context: context, jobs: jobs, timeout: options.timeout, tracePath: options.tracePath, explain: options.explain)
    }

    /// The bundled example's logs go with its temporary directory at exit, unless `--logs` put
    /// them elsewhere: the summary says so.
    var logDirectoryNote: String? {
        guard options.pipelinePath == nil, options.logDirectory == nil else { return nil }
        return "(removed at exit with the bundled example's directory; --logs DIR keeps them)"
    }

    /// Says, on the run's display, that it starts.
    func announce(_ run: PipelineRun) {
        let count = pipeline.steps.count
        run.context.display.runStarted(
            "Running \(count) step\(count == 1 ? "" : "s") of \(PipelineSource.describe(options.pipelinePath)), \(jobs) at a time")
        if let problem = run.context.upToDate?.loadProblem { run.context.display.note(problem) }
    }
}
