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
        if options.showVersion {
            Output.write("steps \(StepsVersion.current)\n")
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

        let jobs = options.jobs ?? pipeline.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let logDirectory = URL(fileURLWithPath: options.logDirectory ?? pipeline.directory.appendingPathComponent(".steps/logs").path)
        let live = !options.dryRun && !options.plain && isatty(STDOUT_FILENO) == 1
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        // Whatever the run will write is checked now, not after the run.
        let unwritable = [
            options.tracePath.flatMap { path in OutputPath.problemWritingFile(at: path).map { "cannot write the trace to \(path): \($0)" } },
            options.graphPath.flatMap { path in OutputPath.problemWritingFile(at: path).map { "cannot write the graph to \(path): \($0)" } },
            OutputPath.problemWritingDirectory(at: logDirectory.path).map { "cannot create the log directory \(logDirectory.path): \($0)" },
        ].compactMap { $0 }
        if !unwritable.isEmpty {
            for problem in unwritable { Output.error("steps: " + problem) }
            exit(2)
        }
        let display: any Display = live ? LiveDisplay(total: pipeline.steps.count) : PlainDisplay()
        let context = RunContext(
            pipeline: pipeline, logDirectory: logDirectory, display: display, gracePeriod: options.gracePeriod)
        let run = PipelineRun(context: context, jobs: jobs, timeout: options.timeout, tracePath: options.tracePath)

        if let graphPath = options.graphPath {
            do {
                try run.dependencyGraph.write(to: URL(fileURLWithPath: graphPath))
            } catch {
                fail("cannot write the graph to \(graphPath): \((error as? TraceFileError)?.reason ?? "\(error)")")
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
        display.runStarted("Running \(pipeline.steps.count) step\(pipeline.steps.count == 1 ? "" : "s") of \(source), \(jobs) at a time")
        run.start { status in exit(status) }
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
