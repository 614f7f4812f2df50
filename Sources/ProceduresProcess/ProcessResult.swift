import Foundation

/// How a child process ended.
public enum ProcessStatus: Sendable, Hashable, CustomStringConvertible {
    /// The program exited by itself with this exit code (0 usually means success).
    case exited(Int32)
    /// The program was killed by this signal (`SIGTERM` is 15, `SIGKILL` is 9).
    case signaled(Int32)

    /// True for `.exited(0)`.
    public var isSuccess: Bool { self == .exited(0) }

    /// "exited with status 3", "was killed by signal 9 (SIGKILL)".
    public var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal):
            let name = ProcessStatus.signalNames[signal].map { " (\($0))" } ?? ""
            return "was killed by signal \(signal)\(name)"
        }
    }

    /// Decodes a `waitpid` status word (the C macros `WIFEXITED` & co. are not imported).
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
    }

    private static let signalNames: [Int32: String] = [
        1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 9: "SIGKILL",
        11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
    ]
}

/// What a finished ``ProcessProcedure`` produced: how the program ended and what it wrote.
///
/// Output is captured up to the procedure's limit; beyond it the bytes are dropped and the
/// `…WasTruncated` flag says so. A stream still held open by a process the procedure could not
/// stop, half a second after the program exited, is closed there and the `…WasCutShort` flag
/// says so. A stream that was not captured (discarded, inherited or streamed as lines) is empty
/// here.
public struct ProcessResult: Sendable, Hashable {
    /// How the program ended.
    public var status: ProcessStatus
    /// The bytes the program wrote to standard output (the first `limit` of them).
    public var standardOutput: Data
    /// The bytes the program wrote to standard error (the first `limit` of them).
    public var standardError: Data
    /// True if the program wrote more to standard output than the capture limit kept.
    public var standardOutputWasTruncated: Bool
    /// True if the program wrote more to standard error than the capture limit kept.
    public var standardErrorWasTruncated: Bool
    /// The last few kilobytes the program wrote to standard error, even past the capture
    /// limit: what an error message quotes.
    public var standardErrorTail: String
    /// True if standard output did not reach its end: once the program had exited, a process
    /// out of the procedure's reach (see ``ProcessContainment``) still held it open, so the
    /// procedure read what was there and stopped waiting. Whatever came later is lost.
    public var standardOutputWasCutShort: Bool
    /// True if standard error did not reach its end (as ``standardOutputWasCutShort``).
    public var standardErrorWasCutShort: Bool

    /// A result; the library makes these, tests may too.
    public init(
        status: ProcessStatus, standardOutput: Data = Data(), standardError: Data = Data(),
        standardOutputWasTruncated: Bool = false, standardErrorWasTruncated: Bool = false,
        standardErrorTail: String? = nil, standardOutputWasCutShort: Bool = false, standardErrorWasCutShort: Bool = false
    ) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardOutputWasTruncated = standardOutputWasTruncated
        self.standardErrorWasTruncated = standardErrorWasTruncated
        self.standardErrorTail = standardErrorTail ?? String(decoding: standardError, as: UTF8.self)
        self.standardOutputWasCutShort = standardOutputWasCutShort
        self.standardErrorWasCutShort = standardErrorWasCutShort
    }

    /// Standard output decoded as UTF-8 (invalid bytes replaced).
    public var standardOutputString: String { String(decoding: standardOutput, as: UTF8.self) }

    /// Standard error decoded as UTF-8 (invalid bytes replaced).
    public var standardErrorString: String { String(decoding: standardError, as: UTF8.self) }
}
