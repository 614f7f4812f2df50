import Foundation

/// Why a ``ProcessProcedure`` failed.
public enum ProcessProcedureError: Error, Sendable, CustomStringConvertible {
    /// No executable by this name: the path does not exist, or a bare name was not found in
    /// any directory of the `PATH` (listed).
    case executableNotFound(String, searched: [String])
    /// The file exists but cannot be executed (permissions, or not a program).
    case notExecutable(String, reason: String)
    /// The working directory does not exist, is not a directory, or cannot be entered.
    case workingDirectoryUnusable(String, reason: String)
    /// The file given as standard input cannot be opened for reading.
    case standardInputUnreadable(String, reason: String)
    /// The system refused to start the process for another reason (`errno` and its text).
    case launchFailed(String, errno: Int32, reason: String)
    /// The program ran and exited, but the system reaped it before its status could be read:
    /// this process ignores SIGCHLD (`signal(SIGCHLD, SIG_IGN)`), which makes the kernel discard
    /// every child's status. Leave SIGCHLD at its default to run programs.
    case statusUnavailable(String)
    /// The program ended with an exit code it was not allowed, or was killed by a signal it
    /// was not sent by its procedure. The result carries the status, the captured output and
    /// the tail of standard error.
    case failed(executable: String, result: ProcessResult)

    /// One line, with the tail of standard error for a failed program.
    public var description: String {
        switch self {
        case .executableNotFound(let name, let searched):
            return searched.isEmpty
                ? "executable not found: \(name)"
                : "executable not found: \(name) (searched PATH: \(searched.joined(separator: ":")))"
        case .notExecutable(let path, let reason):
            return "not executable: \(path): \(reason)"
        case .workingDirectoryUnusable(let path, let reason):
            return "working directory unusable: \(path): \(reason)"
        case .standardInputUnreadable(let path, let reason):
            return "standard input unreadable: \(path): \(reason)"
        case .launchFailed(let executable, let code, let reason):
            return "could not start \(executable): \(reason) (errno \(code))"
        case .statusUnavailable(let executable):
            return "\(executable) exited, but its status was lost: this process ignores SIGCHLD"
        case .failed(let executable, let result):
            let tail = result.standardErrorTail.trimmingCharacters(in: .whitespacesAndNewlines)
            return tail.isEmpty
                ? "\(executable) \(result.status)"
                : "\(executable) \(result.status): \(tail)"
        }
    }

    /// The result of a program that ran and failed; nil for errors that kept it from starting.
    public var result: ProcessResult? {
        if case .failed(_, let result) = self { return result }
        return nil
    }
}
