import Foundation

/// What the command line asks for, read by hand (the package has no dependencies) from the
/// table of ``CommandOption``s, which also writes the help.
struct Options: Sendable, Equatable {
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
    var showVersion = false
    /// `--force` (every step) or `--force STEP` (those named).
    var forced = ForcedSteps.none
    /// `--output MODE`; nil: the default for where the output goes.
    var output: OutputMode?
    /// `--watch`: run again whenever a step's sources change.
    var watch = false
    /// `--explain`: list every unfinished step and why on `--timeout` (SIGUSR1 always does).
    var explain = false

    /// Reads `arguments` (without the program's name). `--name=value` is `--name value`, and
    /// `-jN` is `-j N` (for a short option that takes a value).
    static func parse(_ arguments: [String]) throws(StepsError) -> Options {
        let byName = Dictionary(uniqueKeysWithValues: CommandOption.all.flatMap { option in option.names.map { ($0, option) } })
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "-" { throw .usage("reading the pipeline from standard input is not supported; give a file") }
            guard argument.hasPrefix("-") else {
                if let first = options.pipelinePath { throw .usage("only one pipeline file may be given ('\(first)', then '\(argument)')") }
                options.pipelinePath = argument
                continue
            }
            var spelling = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                spelling = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            } else if !argument.hasPrefix("--"), argument.count > 2, let option = byName[String(argument.prefix(2))], option.argument != .none {
                spelling = String(argument.prefix(2))
                attached = String(argument.dropFirst(2))
            }
            guard let option = byName[spelling] else { throw .usage("unknown option '\(argument)'") }
            let value: String?
            switch option.argument {
            case .none:
                if attached != nil { throw .usage("\(spelling) takes no value") }
                value = nil
            case .required:
                guard let given = attached ?? remaining.popFirst() else { throw .usage("\(spelling) needs a value") }
                value = given
            case .optional(let placeholder):
                if let attached {
                    guard !attached.isEmpty else { throw .usage("\(spelling)= needs a \(placeholder.lowercased()) name") }
                    value = attached
                } else if let next = remaining.first, !next.hasPrefix("-"), !next.hasSuffix(".json") {
                    value = remaining.popFirst()
                } else {
                    value = nil
                }
            }
            try option.apply(&options, value, spelling)
        }
        return options
    }

    /// The help, its options written from ``CommandOption/all``.
    static var usage: String {
        var text = """
            USAGE: steps [PIPELINE.json] [options]

            Runs the steps of a pipeline file (JSON, see Documentation/Pipelines.md): each step a shell
            command or a program, started once the steps it needs have succeeded, at most --jobs at a
            time, retried, timed out, kept apart from steps sharing an exclusive category, or skipped
            when its condition does not hold or it is up to date. Without PIPELINE, runs the bundled
            example pipeline in a new temporary directory.

            OPTIONS:

            """
        let column = 22
        for option in CommandOption.all {
            let lead = "  " + option.synopsis
            let lines = wrap(option.help, width: 96 - column)
            text += lead + String(repeating: " ", count: max(2, column - lead.count)) + lines[0] + "\n"
            for line in lines.dropFirst() { text += String(repeating: " ", count: column) + line + "\n" }
        }
        text += """

            Exit status: 0 every step succeeded (or was skipped), 1 a step failed, 2 bad arguments,
            pipeline file or missing program, 124 --timeout expired, 130 interrupted (Ctrl-C), 143
            terminated (SIGTERM) — each after every child process has been stopped. A second Ctrl-C
            kills every step's processes at once.
            """
        return text
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }
}
