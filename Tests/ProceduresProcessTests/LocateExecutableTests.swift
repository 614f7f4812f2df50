import Foundation
import Procedures
import ProceduresProcess
import ProceduresTesting
import XCTest

/// `ProcessProcedure.locateExecutable` finds a program as the procedure does before it starts
/// one, and fails the way the procedure would.
final class LocateExecutableTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("locate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("bin/tool"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("other"), withIntermediateDirectories: true)
        let tool = directory.appendingPathComponent("other/tool")
        try Data("#!/bin/sh\necho found\n".utf8).write(to: tool)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testABareNameIsTheFirstExecutableFileInThePathOfTheEnvironment() throws {
        let path = "\(directory.path)/bin:\(directory.path)/other"
        // bin/tool is a directory: skipped, as the procedure skips it.
        XCTAssertEqual(try ProcessProcedure.locateExecutable("tool", environment: ["PATH": path]), directory.path + "/other/tool")
        XCTAssertThrowsError(try ProcessProcedure.locateExecutable("tool", environment: ["PATH": "/nowhere"])) { error in
            XCTAssertEqual("\(error)", "executable not found: tool (searched PATH: /nowhere)")
        }
    }

    func testAPathIsFoundFromTheWorkingDirectory() throws {
        XCTAssertEqual(try ProcessProcedure.locateExecutable("other/tool", workingDirectory: directory), "other/tool")
        XCTAssertThrowsError(try ProcessProcedure.locateExecutable("./missing", workingDirectory: directory)) { error in
            XCTAssertEqual("\(error)", "executable not found: ./missing")
        }
        XCTAssertThrowsError(try ProcessProcedure.locateExecutable("/bin/sh", workingDirectory: directory.appendingPathComponent("gone"))) { error in
            XCTAssertEqual("\(error)", "working directory unusable: \(directory.path)/gone: no such directory")
        }
    }

    func testTheProcedureFailsAsTheLookupSays() throws {
        let environment = ["PATH": "/nowhere"]
        let procedure = ProcessProcedure(executable: "tool", environment: environment)
        wait(for: procedure, timeout: 10)
        var lookup: (any Error)?
        XCTAssertThrowsError(try ProcessProcedure.locateExecutable("tool", environment: environment)) { lookup = $0 }
        XCTAssertEqual(procedure.errors.map { "\($0)" }, [lookup.map { "\($0)" } ?? "no error"])
    }
}
