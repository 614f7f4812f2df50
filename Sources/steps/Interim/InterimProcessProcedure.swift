import Foundation
import Procedures

// INTERIM: stands in for the library's ProcessProcedure (issue 14) until it reaches main.

/// Why a program did not succeed.
enum ProgramFailure: Error, CustomStringConvertible, Equatable {
    case exited(status: Int32)
    case killed(signal: Int32)
    case cannotStart(String)
    case timedOut(after: Double)

    var description: String {
        switch self {
        case .exited(let status): return "exit status \(status)"
        case .killed(let signal): return "killed by signal \(signal)" + (signal == SIGKILL ? " (SIGKILL)" : signal == SIGTERM ? " (SIGTERM)" : "")
        case .cannotStart(let reason): return "cannot start: \(reason)"
        case .timedOut(let seconds): return "timed out after \(seconds.formatted)s"
        }
    }
}

/// Runs one program with its output going to a file handle. Cancelling it stops the program
/// and everything it started (SIGTERM to its process group, SIGKILL after a grace period);
/// it finishes only once the program has exited.
final class InterimProcessProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `process` and `stopRequested` are guarded by `lock`; the rest is immutable.
    let executable: URL
    let arguments: [String]
    let environment: [String: String]
    let workingDirectory: URL
    let output: FileHandle
    let grace: Double
    /// The program as the step names it, for "no such program".
    let programName: String
    private let lock = NSLock()
    private var process: Process?
    private var stopRequested = false

    init(
        executable: URL, arguments: [String], environment: [String: String], workingDirectory: URL, output: FileHandle,
        programName: String, grace: Double = 2
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.output = output
        self.grace = grace
        self.programName = programName
        super.init()
    }

    override func execute() {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = workingDirectory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        process.terminationHandler = { [self] process in
            // Whatever the program left in its process group goes with it.
            kill(-process.processIdentifier, SIGKILL)
            switch process.terminationReason {
            case .exit where process.terminationStatus == 0: finish()
            case .exit: finish(withError: ProgramFailure.exited(status: process.terminationStatus))
            default: finish(withError: ProgramFailure.killed(signal: process.terminationStatus))
            }
        }
        let started: Result<Void, any Error> = lock.withLock {
            guard !stopRequested else { return .failure(CancellationError()) }
            do {
                try Self.withSignalsUnblocked { try process.run() }
                self.process = process
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch started {
        case .success: break
        case .failure(is CancellationError): finish()
        case .failure(let error): finish(withError: ProgramFailure.cannotStart(describe(error)))
        }
    }

    private func describe(_ error: any Error) -> String {
        if !FileManager.default.fileExists(atPath: executable.path) { return "no such program: \(programName)" }
        return (error as NSError).localizedDescription
    }

    /// Foundation's `Process` starts the child with the calling thread's signal mask, and
    /// Dispatch's worker threads block nearly every signal: a child started from one would
    /// never see SIGTERM. The mask is emptied for the moment of the start.
    private static func withSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        let pid: Int32? = lock.withLock {
            stopRequested = true
            return process?.processIdentifier
        }
        guard let pid else { return }
        // Foundation starts the child in a process group of its own: signal the whole group.
        kill(-pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [weak self] in
            guard let self, !self.isFinished else { return }
            kill(-pid, SIGKILL)
        }
    }
}
