import Foundation
import Procedures

/// `steps`: runs a pipeline of shell steps as one graph of procedures, in five stages, each a
/// type of its own:
///
/// 1. **parse** the command line (``Options``, from the table of ``CommandOption``s) and the
///    pipeline file (``PipelineFile``: ``JSONParser``, then ``PipelineSchemaReader``);
/// 2. **check** the pipeline's meaning (``PipelineChecker``), what the run needs from this
///    machine (``RunSettings``), and with `--dry-run` the programs it starts (``ProgramCheck``);
/// 3. **plan** the order (``PipelinePlan``), which `--dry-run` prints, and its graph;
/// 4. **run** it (``PipelineRun``; ``WatchSession`` for `--watch`);
/// 5. **display** it (``PlainDisplay`` or ``LiveDisplay``, then the ``Summary``).
///
/// Every error before the run is a thrown ``StepsError``; `--dry-run` builds no run.
public final class StepsCommand {
    private let arguments: [String]
    private let write: @Sendable (String) -> Void
    private let terminal: Bool
    /// The run started (nil before, and for `--help`, `--version`, `--dry-run` and `--watch`).
    private(set) var run: PipelineRun?
    /// `--watch`'s session, kept as long as the command is.
    private(set) var session: WatchSession?

    /// `arguments` without the program's name; `write` prints the help, the version and the
    /// plan (the displays write to standard output themselves).
    public convenience init(arguments: [String]) {
        self.init(
            arguments: arguments, write: Output.write,
            terminal: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb")
    }

    init(arguments: [String], write: @escaping @Sendable (String) -> Void, terminal: Bool) {
        self.arguments = arguments
        self.write = write
        self.terminal = terminal
    }

    /// Does what the arguments ask. `exit` gets the exit status once it is done: at once for
    /// `--help`, `--version` and `--dry-run`, when the run ends otherwise (from another thread;
    /// the caller keeps the main thread serving Dispatch). Throws before anything runs.
    public func start(exit: @escaping @Sendable (Int32) -> Void) throws(StepsError) {
        let options = try Options.parse(arguments)
        if options.showHelp { return finish(Options.usage + "\n", exit) }
        if options.showVersion { return finish("steps \(StepsVersion.current)\n", exit) }
        let document = try PipelineSource.load(options.pipelinePath, run: !options.dryRun)
        let settings = try RunSettings(options: options, pipeline: document.pipeline, terminal: terminal)
        let plan = PipelinePlan(document.pipeline)
        if let graphPath = options.graphPath {
            do {
                try plan.dependencyGraph.write(to: URL(fileURLWithPath: graphPath))
            } catch {
                throw .refused(["cannot write the graph to \(graphPath): \((error as? TraceFileError)?.reason ?? "\(error)")"])
            }
        }
        if options.dryRun {
            let programs = ProgramCheck(document)
            if !programs.problems.isEmpty { throw StepsError(lines: document.render(programs.problems)) }
            return finish(plan.render(jobs: settings.jobs) + document.render(programs.notes).map { $0 + "\n" }.joined(), exit)
        }
        try settings.createLogDirectory()
        if options.watch {
            let session = WatchSession(pipeline: document.pipeline, makeRun: settings.makeRun, announce: settings.announce)
            guard session.hasSources else { throw .refused(["--watch: no step has sources to watch (see Documentation/Pipelines.md)"]) }
            do {
                try session.start()
            } catch {
                throw .refused(["--watch: \(error)"])
            }
            self.session = session
        } else {
            let run = settings.makeRun()
            self.run = run
            settings.announce(run)
            run.start(completion: exit)
        }
    }

    private func finish(_ text: String, _ exit: @Sendable (Int32) -> Void) {
        write(text)
        exit(0)
    }
}
