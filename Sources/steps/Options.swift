import Foundation

/// The command line, parsed by hand (the package has no dependencies).
struct Options {
    var pipelinePath: String?
    var jobs: Int?
    var dryRun = false
    var graphPath: String?
    var tracePath: String?
    var timeout: Double?
    /// Seconds a stopped step's processes get between SIGTERM and SIGKILL.
    var gracePeriod: Double = 2
    var logDirectory: String?
    var plain = false
    var showHelp = false
    /// `--force` (every step) or `--force STEP` (those named).
    var forced = ForcedSteps.none
    /// `--output MODE`; nil: the default for where the output goes.
    var output: OutputMode?
    /// `--watch`: run again whenever a step's sources change.
    var watch = false
    /// `--explain`: list every unfinished step and why, on SIGUSR1 and on `--timeout`.
    var explain = false

    static let usage = """
        USAGE: steps [PIPELINE.json] [options]

        Runs the steps of a pipeline file (JSON, see Documentation/Pipelines.md): each step a shell
        command or a program, started once the steps it needs have succeeded, at most --jobs at a
        time, retried, timed out, kept apart from steps sharing an exclusive category, or skipped
        when its condition does not hold. Without PIPELINE, runs the bundled example pipeline in a
        new temporary directory.

        OPTIONS:
          -j, --jobs N        steps run at once (default: the pipeline's "jobs", else the number of CPUs)
          -n, --dry-run       check the pipeline and print the plan in order, run nothing
          --graph FILE        write the dependency graph as Graphviz DOT to FILE
          --trace FILE        write a trace timeline (Chrome trace-event JSON: open it in Perfetto)
          --timeout SECS      stop everything after SECS seconds (exit status 124)
          --explain           list every unfinished step and why it waits, on SIGUSR1
                              (kill -USR1 PID) and when --timeout expires
          --grace SECS        a stopped step's processes get SECS seconds between SIGTERM and
                              SIGKILL (default 2)
          --logs DIR          where each step's output is kept (default: .steps/logs next to
                              the pipeline file; a temporary directory for the bundled one)
          --plain             timestamped lines even on a terminal
          -w, --watch         after the run, watch the steps' sources and run again (what is out
                              of date) when they change; a change during a run restarts it
          --output MODE       what steps print, on the terminal: prefixed (every line as
                              'step | line'), grouped (a step's lines when it ends), failed
                              (a failed step's lines; the default off a terminal) or quiet
                              (a failed step's last lines; the default on a terminal). The
                              logs keep everything: NAME.log (stdout), NAME.err.log (stderr)
          --force [STEP]      run steps with sources even if up to date: every step (sources
                              rehashed), or STEP (repeatable; --force=STEP if STEP ends in .json);
                              with --watch, the first run
          -h, --help          show this help

        Exit status: 0 every step succeeded (or was skipped), 1 a step failed, 2 bad arguments or
        pipeline file, 124 --timeout expired, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM) — each after
        every child process has been stopped.
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return value
        }
        func number(for flag: String, minimum: Double, whole: Bool = false) throws(UsageError) -> Double {
            let text = try value(for: flag)
            guard let number = Double(text), number.isFinite, number >= minimum, !whole || number == number.rounded() else {
                let what = whole ? "a whole number" : "a number"
                throw UsageError(description: "\(flag) needs \(what) of at least \(minimum.formatted), not '\(text)'")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            // --force=STEP always names a step (the value of --force STEP is optional).
            if argument.hasPrefix("--force=") {
                let name = String(argument.dropFirst("--force=".count))
                guard !name.isEmpty else { throw UsageError(description: "--force= needs a step name") }
                options.forced = options.forced.adding(name)
                continue
            }
            // --flag=value is the same as --flag value.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                remaining.insert(String(argument[argument.index(after: equals)...]), at: remaining.startIndex)
                remaining.insert(String(argument[..<equals]), at: remaining.startIndex)
                continue
            }
            switch argument {
            case "-h", "--help": options.showHelp = true
            case "-j", "--jobs": options.jobs = Int(try number(for: argument, minimum: 1, whole: true))
            case "-n", "--dry-run": options.dryRun = true
            case "--graph": options.graphPath = try value(for: argument)
            case "--trace": options.tracePath = try value(for: argument)
            case "--timeout":
                let seconds = try number(for: argument, minimum: 0)
                guard seconds > 0 else { throw UsageError(description: "--timeout needs a number of seconds above 0") }
                options.timeout = seconds
            case "--grace": options.gracePeriod = try number(for: argument, minimum: 0)
            case "--logs": options.logDirectory = try value(for: argument)
            case "--plain": options.plain = true
            case "-w", "--watch": options.watch = true
            case "--explain": options.explain = true
            case "--output":
                let text = try value(for: argument)
                guard let mode = OutputMode(rawValue: text) else {
                    let modes = OutputMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(description: "--output needs one of \(modes), not '\(text)'")
                }
                options.output = mode
            case "--force":
                // An optional value: the next word, unless it is an option or a pipeline file.
                if let next = remaining.first, !next.hasPrefix("-"), !next.hasSuffix(".json") {
                    remaining.removeFirst()
                    options.forced = options.forced.adding(next)
                } else {
                    options.forced = .all
                }
            case "-": throw UsageError(description: "reading the pipeline from standard input is not supported; give a file")
            default:
                if argument.hasPrefix("-") { throw UsageError(description: "unknown option '\(argument)'") }
                guard options.pipelinePath == nil else {
                    throw UsageError(description: "only one pipeline file may be given ('\(options.pipelinePath!)', then '\(argument)')")
                }
                options.pipelinePath = argument
            }
        }
        return options
    }
}

extension Double {
    /// 2 → "2", 0.5 → "0.5".
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
