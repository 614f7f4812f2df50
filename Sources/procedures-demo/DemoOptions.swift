import Foundation
import Procedures

/// The command line, parsed.
struct DemoOptions {
    var root: String?
    var jobs = 4
    var top = 5
    var timeout: TimeInterval?
    var attempts = 3
    var backoff: TimeInterval = 0.05
    var slowdown: TimeInterval = 0
    var showHelp = false

    static let usage = """
        USAGE: procedures-demo [PATH] [options]

        Walks PATH (default: this package's Sources directory), and counts the lines, words
        and bytes of every file, with a checksum, using one procedure per file inside a
        GroupProcedure. Prints the totals and the largest files.

        OPTIONS:
          --jobs N          files processed at once (default 4)
          --top N           how many of the largest files to list (default 5)
          --timeout SECS    cancel everything after SECS seconds (exit status 124)
          --attempts N      tries per file before it is reported as unreadable (default 3);
                            retries wait 0.05 s, then 0.1 s, … (a DelayProcedure each)
          --slow SECS       wait SECS before each file (a DelayProcedure), to watch progress
                            or try Ctrl-C on a small tree
          -h, --help        show this help

        Ctrl-C cancels the whole tree of procedures; the files finished so far are still
        summarised. Exit status: 0 done (unreadable files are reported, not fatal),
        2 bad arguments or unreadable PATH, 124 timed out, 130 interrupted.
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> DemoOptions {
        var options = DemoOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return value
        }
        func number(for flag: String, minimum: Double) throws -> Double {
            let text = try value(for: flag)
            guard let number = Double(text), number.isFinite, number >= minimum else {
                throw UsageError(description: "\(flag) needs a number of at least \(minimum), not '\(text)'")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": options.showHelp = true
            case "--jobs": options.jobs = Int(try number(for: argument, minimum: 1))
            case "--top": options.top = Int(try number(for: argument, minimum: 0))
            case "--timeout": options.timeout = try number(for: argument, minimum: 0)
            case "--attempts": options.attempts = Int(try number(for: argument, minimum: 1))
            case "--slow": options.slowdown = try number(for: argument, minimum: 0)
            default:
                if argument.hasPrefix("-") { throw UsageError(description: "unknown option '\(argument)'") }
                guard options.root == nil else {
                    throw UsageError(description: "only one PATH may be given ('\(argument)')")
                }
                options.root = argument
            }
        }
        return options
    }
}
