import Foundation

/// One option of the command line: how it is spelt, the value it takes, what it means (the
/// help text) and what it sets. ``Options/parse(_:)`` reads ``all`` and ``Options/usage`` is
/// written from it, so the two cannot disagree.
struct CommandOption: Sendable {
    /// The value an option takes.
    enum Argument: Sendable, Equatable {
        /// None: the option is a switch.
        case none
        /// A value, named by the placeholder the help shows (`N`, `FILE`).
        case required(String)
        /// A value if the next word is one (not an option, not a pipeline file); attached with
        /// `=` it always is one.
        case optional(String)
    }

    /// `["-j", "--jobs"]`: a short and/or a long spelling.
    let names: [String]
    let argument: Argument
    /// What it does, as the help says it (wrapped to fit).
    let help: String
    /// Sets what it means in `options`; `value` is nil only for a switch or an absent optional value.
    let apply: @Sendable (_ options: inout Options, _ value: String?, _ spelling: String) throws(StepsError) -> Void

    /// Every option, in the order the help lists them.
    static let all: [CommandOption] = [
        CommandOption(
            names: ["-j", "--jobs"], argument: .required("N"),
            help: "steps run at once, 1 to \(PipelineChecker.largestCount) (default: the pipeline's \"jobs\", else the number of CPUs); -jN works too"
        ) { options, value, spelling throws(StepsError) in
            guard let jobs = Double(value ?? "").flatMap(PipelineChecker.count) else {
                throw .usage("\(spelling) needs \(PipelineChecker.countRange), not '\(value ?? "")'")
            }
            options.jobs = jobs
        },
        CommandOption(
            names: ["-n", "--dry-run"], argument: .none,
            help: "check the pipeline and that every program it starts is there (PATH, cwd); print the plan in order; run nothing"
        ) { options, _, _ in options.dryRun = true },
        CommandOption(names: ["--graph"], argument: .required("FILE"), help: "write the dependency graph as Graphviz DOT to FILE") {
            options, value, _ in options.graphPath = value
        },
        CommandOption(
            names: ["--trace"], argument: .required("FILE"), help: "write a trace timeline (Chrome trace-event JSON: open it in Perfetto)"
        ) { options, value, _ in options.tracePath = value },
        CommandOption(names: ["--timeout"], argument: .required("SECS"), help: "stop everything after SECS seconds (exit status 124)") {
            options, value, spelling throws(StepsError) in
            options.timeout = try seconds(value, spelling, aboveZero: true)
        },
        CommandOption(
            names: ["--explain"], argument: .none,
            help: "list every unfinished step and why it waits when --timeout expires, as SIGUSR1 (kill -USR1 PID) always does"
        ) { options, _, _ in options.explain = true },
        CommandOption(
            names: ["--grace"], argument: .required("SECS"),
            help: "a stopped step's processes get SECS seconds between SIGTERM and SIGKILL (default 2)"
        ) { options, value, spelling throws(StepsError) in
            options.gracePeriod = try seconds(value, spelling, aboveZero: false)
        },
        CommandOption(
            names: ["--logs"], argument: .required("DIR"),
            help: "where each step's output is kept (default: .steps/logs next to the pipeline file; a temporary directory for the bundled one)"
        ) { options, value, _ in options.logDirectory = value },
        CommandOption(names: ["--plain"], argument: .none, help: "timestamped lines even on a terminal") { options, _, _ in options.plain = true },
        CommandOption(
            names: ["-w", "--watch"], argument: .none,
            help: "after the run, watch the steps' sources and run again (what is out of date) when they change; a change during a run restarts it"
        ) { options, _, _ in options.watch = true },
        CommandOption(
            names: ["--output"], argument: .required("MODE"),
            help: "what steps print, on the terminal: prefixed (every line as 'step | line'), grouped (a step's lines when it ends), "
                + "failed (a failed step's lines; the default off a terminal) or quiet (a failed step's last lines; the default on a "
                + "terminal). The logs keep everything: NAME.log (stdout), NAME.err.log (stderr)"
        ) { options, value, spelling throws(StepsError) in
            guard let mode = OutputMode(rawValue: value ?? "") else {
                let modes = OutputMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("\(spelling) needs one of \(modes), not '\(value ?? "")'")
            }
            options.output = mode
        },
        CommandOption(
            names: ["--force"], argument: .optional("STEP"),
            help: "run steps with sources even if up to date: every step (sources rehashed), or STEP (repeatable; --force=STEP if STEP ends in .json); with --watch, the first run"
        ) { options, value, _ in options.forced = value.map(options.forced.adding) ?? .all },
        CommandOption(names: ["-h", "--help"], argument: .none, help: "show this help") { options, _, _ in options.showHelp = true },
        CommandOption(names: ["--version"], argument: .none, help: "show the version of steps") { options, _, _ in options.showVersion = true },
    ]

    /// Seconds: at least 0, or above 0 where zero makes no sense.
    private static func seconds(_ text: String?, _ spelling: String, aboveZero: Bool) throws(StepsError) -> Double {
        guard let number = Double(text ?? ""), number.isFinite, aboveZero ? number > 0 : number >= 0 else {
            throw .usage("\(spelling) needs a number of seconds \(aboveZero ? "above 0" : "of at least 0"), not '\(text ?? "")'")
        }
        return number
    }

    /// `-j, --jobs N`, as the help's left column shows the option.
    var synopsis: String {
        let spelled = names.joined(separator: ", ")
        switch argument {
        case .none: return spelled
        case .required(let placeholder): return spelled + " " + placeholder
        case .optional(let placeholder): return spelled + " [\(placeholder)]"
        }
    }
}
