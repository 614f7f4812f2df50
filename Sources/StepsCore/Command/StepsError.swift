import Foundation

/// Why `steps` did not run: bad arguments, a pipeline file that cannot run, or something the
/// run needs from this machine that it cannot have (a file it cannot write, a program that is
/// not there). Each is found before anything runs.
public struct StepsError: Error, Equatable {
    /// What to print on standard error, one problem a line.
    public var lines: [String]
    /// The exit status: 2 for every error found before the run.
    public var exitStatus: Int32 = 2

    /// A bad command line: one line, with a pointer to the help (an argument it quotes escaped,
    /// as every line is: see `String.escapingControlCharacters`).
    static func usage(_ message: String) -> StepsError {
        StepsError(lines: ["steps: \(message) (see steps --help)".escapingControlCharacters])
    }

    /// Something the run needs that it cannot have, one line per problem.
    static func refused(_ messages: [String]) -> StepsError {
        StepsError(lines: messages.map { ("steps: " + $0).escapingControlCharacters })
    }

    /// A pipeline file that cannot run: its lines as they are (each names the file).
    static func pipeline(_ error: PipelineError) -> StepsError {
        StepsError(lines: error.lines)
    }
}
