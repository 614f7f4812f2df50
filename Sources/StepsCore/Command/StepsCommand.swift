import Foundation
import Procedures
import ProceduresProcess

/// `steps`: runs a pipeline of shell steps as one graph of procedures, in five stages, each a
/// type of its own:
///
/// 1. **parse** the command line (``Options``, from the table of ``CommandOption``s) and the
///    pipeline file (``PipelineFile``: ``JSONParser``, then ``PipelineSchemaReader``);
/// 2. **check** the pipeline's meaning (``PipelineChecker``), what the run needs from this
///    machine (``RunSettings``), and with `--dry-run` the programs it starts (``ProgramCheck``);
/// 3. **plan** the order (``PipelinePlan``), which `--dry-run` prints; `--graph` draws the
///    pipeline file (``PipelineGraph``);
/// 4. **run** it (``PipelineRun``; ``WatchSession`` for `--watch`), with every descendant of
///    a step contained (``ProcessContainment``);
/// 5. **display** it (``PlainDisplay`` or ``LiveDisplay``, then the ``Summary``).
///
/// Every error before the run is a thrown ``StepsError``; `--dry-run` builds no run.
public final class StepsCommand {
    private let arguments: [String]
    private let write: @Sendable (String) -> Void
    private let terminal: Bool
    /// Whether a run turns containment on, and ends the orphans it adopted before exiting.
    private let containment: Bool
    /// The run started (nil before, and for `--help`, `--version`, `--dry-run` and `--watch`).
    private(set) var run: PipelineRun?
    /// `--watch`'s session, kept as long as the command is.
    private(set) var session: WatchSession?

    /// `arguments` without the program's name. The command owns the process: it prints the
    /// help, the version and the plan on standard output, and a run makes this process a
    /// subreaper (see ``ProcessContainment``).
    public convenience init(arguments: [String]) {
        self.init(
            arguments: arguments, write: Output.write,
            terminal: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb", containment: true)
    }

    /// `write` prints the help, the version and the plan (the displays write to standard
    /// output themselves); without `containment` (in-process tests) a run leaves the
    /// process's containment as it is.
    init(arguments: [String], write: @escaping @Sendable (String) -> Void, terminal: Bool, containment: Bool = false) {
        self.arguments = arguments
        self.write = write
        self.terminal = terminal
        self.containment = containment
    }

    /// Does what the arguments ask. `exit` gets the exit status once it is done: at once for
    /// `--help`, `--version` and `--dry-run`, when the run ends otherwise (from another thread,
    /// once the orphans the run adopted are ended; the caller keeps the main thread serving
    /// Dispatch). Throws before anything runs.
    public func start(exit: @escaping @Sendable (Int32) -> Void) throws(StepsError) {
        if containment { Self.keepSignalsFromKilling() }
        let options = try Options.parse(arguments)
        if options.showHelp { return finish(Options.usage + "\n", exit) }
        if options.showVersion { return finish("steps \(StepsVersion.current)\n", exit) }
        let document = try PipelineSource.load(options.pipelinePath, run: !options.dryRun)
        // The bundled example's temporary directory goes when the run ends, or now if it does not start.
        let temporary = options.pipelinePath == nil && !options.dryRun ? document.pipeline.directory : nil
        var done = exit
        if let temporary { done = { status in PipelineSource.remove(temporary); exit(status) } }
        do {
            try start(options, document, exit: done)
        } catch {
            if let temporary { PipelineSource.remove(temporary) }
            throw error
        }
    }

    private func start(_ options: Options, _ document: PipelineDocument, exit: @escaping @Sendable (Int32) -> Void) throws(StepsError) {
        let settings = try RunSettings(options: options, pipeline: document.pipeline, terminal: terminal)
        if let graphPath = options.graphPath {
            do {
                try PipelineGraph(pipeline: document.pipeline).write(to: URL(fileURLWithPath: graphPath))
            } catch {
                throw .refused(["cannot write the graph to \(graphPath): \(OutputPath.reason(of: error))"])
            }
        }
        if options.dryRun {
            let programs = ProgramCheck(document)
            if !programs.problems.isEmpty { throw StepsError(lines: document.render(programs.problems)) }
            let plan = PipelinePlan(document.pipeline).render(jobs: settings.jobs)
            return finish(plan + document.render(programs.notes).map { $0 + "\n" }.joined(), exit)
        }
        try settings.createLogDirectory()
        let exit = contained(exit)
        if options.watch {
            // `--force` is for the first run: the others run because something changed.
            let session = WatchSession(
                pipeline: document.pipeline, first: settings.makeRun(first: true), makeRun: { settings.makeRun(first: false) },
                announce: settings.announce, exit: exit)
            guard session.hasSources else { throw .refused(["--watch: no step has sources to watch (see Documentation/Pipelines.md)"]) }
            do {
                try session.start()
            } catch {
                throw .refused(["--watch: \(error)"])
            }
            self.session = session
            Output.onStandardOutputClosed { session.stop(.outputClosed) }
        } else {
            let run = settings.makeRun(first: true)
            self.run = run
            settings.announce(run)
            run.start(completion: exit)
            Output.onStandardOutputClosed { run.stop(.outputClosed) }
        }
    }

    /// A write to a closed pipe fails with EPIPE instead of killing `steps` (``Output`` stops
    /// the run then), and SIGUSR1 asks for an explanation (each run handles it) instead of
    /// killing it: either would leave the steps' processes running. The signals that stop a
    /// run are ignored only once a run handles them, so that Ctrl-C still ends a slow start.
    private static func keepSignalsFromKilling() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
    }

    /// `exit`, after ending the orphans the run adopted: every descendant of a step, wherever
    /// it went, ends with it, and those no step could claim end before `steps` does, so that
    /// none is left to init. Turns containment on (a cgroup per step where this process may
    /// make them, else a subreaper), before the run starts any program.
    private func contained(_ exit: @escaping @Sendable (Int32) -> Void) -> @Sendable (Int32) -> Void {
        guard containment else { return exit }
        ProcessContainment.enable(controlGroups: true)
        return { status in ProcessContainment.endAdoptedOrphans { exit(status) } }
    }

    private func finish(_ text: String, _ exit: @Sendable (Int32) -> Void) {
        write(text)
        exit(0)
    }
}
