import Foundation
import Procedures

/// `steps`: runs a pipeline of shell steps as one graph of procedures.
@main
enum StepsCommand {
    static func main() {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            fail("\(error) (see steps --help)")
        }
        if options.showHelp {
            Output.write(Options.usage + "\n")
            exit(0)
        }

        let pipeline: Pipeline
        let bundled = options.pipelinePath == nil
        do {
            if let path = options.pipelinePath {
                pipeline = try PipelineFile.load(path: path)
            } else {
                pipeline = try PipelineFile.parse(Data(PackageResources.demo_json), named: "demo.json", directory: try makeScratchDirectory())
            }
        } catch let error as PipelineError {
            for line in error.lines { Output.error(line) }
            exit(2)
        } catch {
            fail("cannot make a directory for the bundled pipeline: \((error as NSError).localizedDescription)")
        }

        if case .named(let names) = options.forced {
            for name in names.sorted() where pipeline.step(named: name) == nil {
                let hint = PipelineFile.closest(to: name, among: pipeline.steps.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                fail("--force \(name): no step is named '\(name)'\(hint) (see steps --help)")
            }
        }
        let jobs = options.jobs ?? pipeline.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let logDirectory = URL(fileURLWithPath: options.logDirectory ?? pipeline.directory.appendingPathComponent(".steps/logs").path)
        let terminal = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        let live = !options.dryRun && !options.plain && terminal
        let names = pipeline.steps.map(\.name)
        // A run's display, state and records are its own: `--watch` makes one run after another
        // (`--force` is for the first of them: the others run because something changed).
        let makeRun: @Sendable (_ first: Bool) -> PipelineRun = { first in
            let display: any Display = live ? LiveDisplay(total: pipeline.steps.count, jobs: jobs, names: names) : PlainDisplay(names: names)
            let upToDate = UpToDateTracker(
                stateURL: UpToDateTracker.stateURL(for: options.pipelinePath ?? "demo.json", directory: pipeline.directory),
                forced: first ? options.forced : .none)
            let context = RunContext(
                pipeline: pipeline, logDirectory: logDirectory, display: display, gracePeriod: options.gracePeriod, upToDate: upToDate,
                outputMode: options.output ?? .automatic(onTerminal: terminal))
            return PipelineRun(context: context, jobs: jobs, timeout: options.timeout, tracePath: options.tracePath, explain: options.explain)
        }
        let run = makeRun(true)

        if let graphPath = options.graphPath {
            do {
                try PipelineGraph(pipeline: pipeline).write(to: URL(fileURLWithPath: graphPath))
            } catch {
                fail("cannot write the graph to \(graphPath): \((error as NSError).localizedDescription)")
            }
        }
        if options.dryRun {
            Output.write(PipelinePlan(pipeline).render(jobs: jobs))
            exit(0)
        }
        do {
            try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        } catch {
            fail("cannot create the log directory \(logDirectory.path): \((error as NSError).localizedDescription)")
        }
        let source = bundled ? "the bundled example pipeline" : options.pipelinePath!
        let announce: @Sendable (PipelineRun) -> Void = { run in
            run.context.display.runStarted("Running \(pipeline.steps.count) step\(pipeline.steps.count == 1 ? "" : "s") of \(source), \(jobs) at a time")
            if let problem = run.context.upToDate?.loadProblem { run.context.display.note(problem) }
        }
        // Every descendant of a step, wherever it went, ends with it (see ProcessContainment);
        // orphans that no step could claim are ended before exiting, so none is left to init.
        ProcessContainment.enable(controlGroups: true)
        if options.watch {
            let session = WatchSession(pipeline: pipeline, first: run, makeRun: { makeRun(false) }, announce: announce)
            guard session.hasSources else { fail("--watch: no step has sources to watch (see Documentation/Pipelines.md)") }
            do {
                try session.start()
            } catch {
                fail("--watch: \(error)")
            }
            withExtendedLifetime(session) { dispatchMain() }
        } else {
            announce(run)
            run.start { status in ProcessContainment.endAdoptedOrphans { exit(status) } }
        }
        dispatchMain()
    }

    static func fail(_ message: String) -> Never {
        Output.error("steps: " + message)
        exit(2)
    }

    /// A new directory for the bundled pipeline to work in, so that each run starts afresh.
    static func makeScratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("steps-demo-\(getpid())-\(Int(Date().timeIntervalSince1970))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
