import Foundation
import XCTest

/// Builds nothing itself: `swift test` builds `procedures-demo` (a dependency of this test
/// target) next to the test bundle, and these tests run the real binary.
final class DemoEndToEndTests: XCTestCase {
    private var tree: URL!

    override func setUpWithError() throws {
        tree = FileManager.default.temporaryDirectory.appendingPathComponent("procedures-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("nested/deeper"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tree)
    }

    private var demo: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("procedures-demo")
    }

    private struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the demo; `onOutput` sees standard output as it arrives and may interrupt.
    private func run(_ arguments: [String], onOutput: (@Sendable (String, Process) -> Void)? = nil) throws -> Run {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: demo.path), "missing \(demo.path)")
        let process = Process()
        process.executableURL = demo
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let collected = OutputBuffer()
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            let text = collected.append(data)
            onOutput?(text, process)
        }
        let exited = expectation(description: "demo exited")
        process.terminationHandler = { _ in exited.fulfill() }
        try process.run()
        wait(for: [exited], timeout: 120)
        out.fileHandleForReading.readabilityHandler = nil
        collected.append(out.fileHandleForReading.readDataToEndOfFile())
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Run(status: process.terminationStatus, output: collected.text, errors: errors)
    }

    private func write(_ text: String, to relative: String) throws {
        try Data(text.utf8).write(to: tree.appendingPathComponent(relative))
    }

    func testSummarisesATreeWithAnUnreadableAndALargeFile() throws {
        try write("one two\nthree\n", to: "a.txt")
        try write("four\n", to: "nested/b.txt")
        try write("", to: "nested/deeper/empty")
        let large = String(repeating: "lorem ipsum dolor\n", count: 200_000)  // 3.6 MB, 600,000 words
        try write(large, to: "nested/large.txt")
        try FileManager.default.createSymbolicLink(
            atPath: tree.appendingPathComponent("nested/broken-link").path, withDestinationPath: "/nonexistent/target")

        let result = try run([tree.path, "--jobs", "2", "--top", "2", "--attempts", "2"])

        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.contains("files measured  4"), result.output)
        XCTAssertTrue(result.output.contains("unreadable      1"), result.output)
        XCTAssertTrue(result.output.contains("lines           200003"), result.output)
        XCTAssertTrue(result.output.contains("words           600004"), result.output)
        XCTAssertTrue(result.output.contains("bytes           \(large.utf8.count + 19)"), result.output)
        XCTAssertTrue(result.output.contains("broken-link"), "the unreadable file is reported")
        XCTAssertTrue(result.output.contains("Largest 2 file(s)"), result.output)
        XCTAssertTrue(result.output.contains("large.txt"), result.output)
    }

    func testInterruptCancelsTheTreeAndPrintsWhatFinished() throws {
        for index in 0..<300 { try write("line \(index)\n", to: "f\(index).txt") }
        let interrupted = LockedFlag()
        let result = try run([tree.path, "--jobs", "2", "--slow", "0.05"]) { text, process in
            // Interrupt once the demo has shown progress: mid-run, not before it started.
            if text.contains("processed "), interrupted.setOnce() { process.interrupt() }
        }
        XCTAssertTrue(interrupted.isSet)
        XCTAssertEqual(result.status, 130, result.output + result.errors)
        XCTAssertTrue(result.output.contains("Cancelled by Ctrl-C (SIGINT)"), result.output)
        XCTAssertTrue(result.output.contains("files measured"), result.output)
        XCTAssertTrue(result.output.contains("not finished"), "some files were cancelled: \(result.output)")
    }

    func testTimeoutCancelsWithStatus124() throws {
        for index in 0..<300 { try write("line \(index)\n", to: "f\(index).txt") }
        let result = try run([tree.path, "--jobs", "1", "--slow", "0.05", "--timeout", "0.2"])
        XCTAssertEqual(result.status, 124, result.output + result.errors)
        XCTAssertTrue(result.output.contains("timed out after 0.2 s"), result.output)
    }

    func testMissingPathIsAOneLineErrorWithStatus2() throws {
        let result = try run([tree.appendingPathComponent("missing").path])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.errors.split(separator: "\n").count, 1, result.errors)
        XCTAssertTrue(result.errors.contains("no such file or directory"), result.errors)
    }

    func testBadOptionAndHelp() throws {
        let bad = try run(["--jobs", "zero"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.errors.contains("--jobs"), bad.errors)
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.output.contains("USAGE: procedures-demo"), help.output)
        XCTAssertTrue(help.output.contains("--timeout"), help.output)
    }
}

private final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    @discardableResult func append(_ more: Data) -> String {
        lock.withLock {
            data.append(more)
            return String(decoding: data, as: UTF8.self)
        }
    }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func setOnce() -> Bool { lock.withLock { defer { value = true }; return !value } }
    var isSet: Bool { lock.withLock { value } }
}
