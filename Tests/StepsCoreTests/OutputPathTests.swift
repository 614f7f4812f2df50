import XCTest
@testable import StepsCore

/// The system itself decides whether an output path can be written, and the check leaves
/// nothing behind. A read-only mount and a full disk are made as small tmpfs mounts where this
/// process may mount (as root in a container); elsewhere those two tests are skipped.
final class OutputPathTests: XCTestCase {
    private var directory: URL!
    private var mounted: [String] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("output-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for path in mounted.reversed() { _ = Self.system("/bin/umount", [path]) }
        try? FileManager.default.removeItem(at: directory)
    }

    func testTheCheckLeavesNothingBehindAndAnExistingFileAsItWas() throws {
        let nested = directory.appendingPathComponent("a/b/logs").path
        XCTAssertNil(OutputPath.problemWritingDirectory(at: nested))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "made directories are removed")
        let file = directory.appendingPathComponent("trace.json").path
        XCTAssertNil(OutputPath.problemWritingFile(at: file))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "the created file is removed")
        try Data("kept".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertNil(OutputPath.problemWritingFile(at: file))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), Data("kept".utf8))
        XCTAssertNil(OutputPath.problemWritingDirectory(at: directory.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["trace.json"], "the probe is removed")
    }

    func testProcAndSysAreRefusedWithTheSystemsReason() {
        XCTAssertEqual(OutputPath.problemWritingFile(at: "/proc/trace.json"), "No such file or directory")
        XCTAssertEqual(OutputPath.problemWritingDirectory(at: "/proc/steps/logs"), "/proc/steps: No such file or directory")
        let refusals = ["Permission denied", "Operation not permitted", "Read-only file system"]
        for problem in [OutputPath.problemWritingFile(at: "/sys/trace.json"), OutputPath.problemWritingDirectory(at: "/sys/logs")] {
            XCTAssertTrue(refusals.contains(problem ?? ""), problem ?? "accepted")
        }
    }

    func testAReadOnlyMountIsRefusedWithTheSystemsReason() throws {
        let mount = try self.mount("read-only", options: "ro,size=64k")
        XCTAssertEqual(OutputPath.problemWritingFile(at: mount + "/trace.json"), "Read-only file system")
        XCTAssertEqual(OutputPath.problemWritingDirectory(at: mount + "/logs"), "Read-only file system")
        XCTAssertEqual(OutputPath.problemWritingDirectory(at: mount), "Read-only file system")
    }

    func testAFullDiskIsRefusedWithTheSystemsReason() throws {
        let mount = try self.mount("full", options: "size=64k")
        // Filled to its last byte: creating an empty file still works, storing a byte does not.
        XCTAssertTrue(FileManager.default.createFile(atPath: mount + "/filler", contents: nil))
        let filler = try XCTUnwrap(FileHandle(forWritingAtPath: mount + "/filler"))
        while (try? filler.write(contentsOf: Data(count: 4096))) != nil {}
        try filler.close()
        XCTAssertEqual(OutputPath.problemWritingFile(at: mount + "/trace.json"), "No space left on device")
        XCTAssertEqual(OutputPath.problemWritingDirectory(at: mount + "/logs"), "No space left on device")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount), ["filler"], "the check leaves nothing behind")
    }

    /// A new tmpfs mounted with `options` in the test's directory; skips the test if this
    /// process may not mount.
    private func mount(_ name: String, options: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.system("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) == 0 else {
            throw XCTSkip("cannot mount a tmpfs here")
        }
        mounted.append(path)
        return path
    }

    /// Runs a program to its end; its exit status (-1 if it could not start).
    private static func system(_ program: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
