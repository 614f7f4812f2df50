import Foundation
import ProceduresTestSupport
import XCTest

/// Runs the real `steps` binary (built next to the test bundle by `swift test`, because the
/// test target depends on it) on pipeline files written into a fresh directory.
class StepsTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("steps-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("steps")
    }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
        var seconds: TimeInterval
        /// The error output's lines.
        var errorLines: [String] { errors.split(separator: "\n").map(String.init) }
    }

    /// Writes `text` as a file in the test's directory and returns its path.
    @discardableResult
    func write(_ text: String, to name: String = "pipeline.json") throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Reads a file the steps wrote into the test's directory.
    func read(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// Runs `steps` with `arguments` in the test's directory, which is also its temporary
    /// directory (`TMPDIR`): what it makes there, such as the bundled pipeline's directory,
    /// goes when the test does. `onOutput` sees the standard output collected so far, each
    /// time more arrives, with the running process.
    func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60,
        onOutput: (@Sendable (String, Process) -> Void)? = nil
    ) throws -> Run {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.binary.path), "missing \(Self.binary.path)")
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment
            .merging(["TMPDIR": directory.path]) { $1 }.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Each pipe is read to its end on a thread of its own, so that nothing is lost or
        // reordered between the last chunk and the exit.
        let collected = LockedBox(Data())
        let errors = LockedBox(Data())
        // Arrival counts, not expectations: after a timeout, an orphan of the killed run may close
        // its output long after this test ended, and fulfilling an expectation then is fatal.
        let outputEnded = ArrivalCount()
        let errorsEnded = ArrivalCount()
        Thread.detachNewThread {
            while true {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                let text = collected.mutate { $0.append(data); return String(decoding: $0, as: UTF8.self) }
                onOutput?(text, process)
            }
            outputEnded.arrive()
        }
        Thread.detachNewThread {
            while true {
                let data = err.fileHandleForReading.availableData
                if data.isEmpty { break }
                errors.mutate { $0.append(data) }
            }
            errorsEnded.arrive()
        }
        let exited = ArrivalCount()
        process.terminationHandler = { _ in exited.arrive() }
        let start = Date()
        try process.run()
        let deadline = start.addingTimeInterval(timeout)
        if ![exited, outputEnded, errorsEnded].allSatisfy({ $0.wait(until: deadline) }) {
            // Killed, so that the exit status can be read and the run goes on to other tests.
            XCTFail("steps \(arguments.joined(separator: " ")) did not end within \(timeout) s; killed")
            kill(process.processIdentifier, SIGKILL)
            let grace = Date().addingTimeInterval(10)
            guard exited.wait(until: grace) else {
                XCTFail("steps \(arguments.joined(separator: " ")) did not exit after SIGKILL")
                return Run(status: -1, output: String(decoding: collected.value, as: UTF8.self), errors: String(decoding: errors.value, as: UTF8.self), seconds: Date().timeIntervalSince(start))
            }
            // What it left running may hold its output open: read what came, up to the grace period.
            _ = outputEnded.wait(until: grace) && errorsEnded.wait(until: grace)
        }
        let seconds = Date().timeIntervalSince(start)
        return Run(status: process.terminationStatus, output: String(decoding: collected.value, as: UTF8.self), errors: String(decoding: errors.value, as: UTF8.self), seconds: seconds)
    }

    /// Whether a process is still alive (a zombie waiting to be reaped counts as gone).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return !stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
    }

    /// Waits (polling, at most `timeout`) for a condition that another process makes true.
    func eventually(_ timeout: TimeInterval = 10, _ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline {
                XCTFail("timed out waiting for \(what)")
                return
            }
            usleep(20_000)
        }
    }
}
