import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import ProceduresTesting
import XCTest

final class ProcessProcedureTests: XCTestCase {
    private func run(_ procedure: ProcessProcedure, file: StaticString = #filePath, line: UInt = #line) {
        wait(for: procedure, timeout: 20, file: file, line: line)
    }

    private func processError(_ procedure: Procedure, file: StaticString = #filePath, line: UInt = #line)
        -> ProcessProcedureError?
    {
        guard let error = procedure.errors.first as? ProcessProcedureError else {
            XCTFail("expected a ProcessProcedureError, got \(procedure.errors)", file: file, line: line)
            return nil
        }
        return error
    }

    // MARK: - Output

    func testCapturesStandardOutputAndStandardErrorSeparately() {
        let procedure = ProcessProcedure(shellCommand: "echo out; echo err >&2")
        run(procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output?.status, .exited(0))
        XCTAssertEqual(procedure.output?.standardOutputString, "out\n")
        XCTAssertEqual(procedure.output?.standardErrorString, "err\n")
        XCTAssertEqual(procedure.output?.standardOutputWasTruncated, false)
    }

    func testRunsAnExecutableFoundInPathWithItsArguments() {
        let procedure = ProcessProcedure(executable: "printf", arguments: ["%s-%s", "a b", "c"])
        run(procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "a b-c")
    }

    func testOutputBeyondTheCaptureLimitIsTruncatedAndSaysSo() {
        let procedure = ProcessProcedure(
            executable: "/bin/sh", arguments: ["-c", "head -c 200000 /dev/zero; echo tail-of-error >&2"],
            standardOutput: .capture(limit: 1000), standardError: .capture(limit: 4))
        run(procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output?.standardOutput.count, 1000)
        XCTAssertEqual(procedure.output?.standardOutputWasTruncated, true)
        XCTAssertEqual(procedure.output?.standardError, Data("tail".utf8))
        XCTAssertEqual(procedure.output?.standardErrorWasTruncated, true)
        // The tail is kept past the limit, for error messages.
        XCTAssertEqual(procedure.output?.standardErrorTail, "tail-of-error\n")
    }

    func testDiscardedOutputIsNotCaptured() {
        let procedure = ProcessProcedure(shellCommand: "echo hidden; echo hidden >&2", standardOutput: .discard, standardError: .discard)
        run(procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output?.standardOutput, Data())
        XCTAssertEqual(procedure.output?.standardError, Data())
    }

    func testStreamsLinesAsTheProgramWritesThem() {
        let procedure = ProcessProcedure(shellCommand: "echo one; echo two >&2; printf 'three\\nlast-without-newline'", standardOutput: .lines, standardError: .lines)
        let lines = LockedBox<[String]>([])
        let errorLines = LockedBox<[String]>([])
        let outputFinished = expectation(description: "output lines finished")
        procedure.standardOutputLines.onSuccess(context: .immediate) { line in lines.mutate { $0.append(line) } }
        procedure.standardOutputLines.onFinish(context: .immediate) { outputFinished.fulfill() }
        procedure.standardErrorLines.onSuccess(context: .immediate) { line in errorLines.mutate { $0.append(line) } }
        run(procedure)
        wait(for: [outputFinished], timeout: 10)
        assertProcedureFinished(procedure)
        XCTAssertEqual(lines.value, ["one", "three", "last-without-newline"])
        XCTAssertEqual(errorLines.value, ["two"])
        XCTAssertEqual(procedure.output?.standardOutput, Data(), "streamed output is not captured as well")
    }

    func testLineDataStreamsDeliverEveryByteAsTheProgramWroteIt() {
        // Every byte value, in lines, the last one without a newline; the same on standard error.
        let every = (0...255).map { String(format: "\\%03o", $0) }.joined()
        let procedure = ProcessProcedure(
            shellCommand: "printf '\(every)x'; printf '\(every)' >&2", standardOutput: .lines, standardError: .lines)
        let output = LockedBox<[Data]>([])
        let errors = LockedBox<[Data]>([])
        let finished = expectation(description: "both line data streams finished")
        finished.expectedFulfillmentCount = 2
        procedure.standardOutputLineData.onSuccess(context: .immediate) { line in output.mutate { $0.append(line) } }
        procedure.standardErrorLineData.onSuccess(context: .immediate) { line in errors.mutate { $0.append(line) } }
        procedure.standardOutputLineData.onFinish(context: .immediate) { finished.fulfill() }
        procedure.standardErrorLineData.onFinish(context: .immediate) { finished.fulfill() }
        run(procedure)
        wait(for: [finished], timeout: 10)
        assertProcedureFinished(procedure)
        let bytes = Data(0...255)
        XCTAssertEqual(output.value.reduce(Data(), +), bytes + Data("x".utf8))
        XCTAssertEqual(output.value.map(\.last), [UInt8(ascii: "\n"), UInt8(ascii: "x")], "two lines, each with its newline but the last")
        XCTAssertEqual(errors.value.reduce(Data(), +), bytes)
    }

    func testLineStreamsOfACapturingProcedureAreFinishedAndEmpty() {
        let procedure = ProcessProcedure(shellCommand: "echo x")
        XCTAssertTrue(procedure.standardOutputLines.isFinished)
        XCTAssertTrue(procedure.standardErrorLines.isFinished)
        XCTAssertTrue(procedure.standardOutputLineData.isFinished)
        XCTAssertTrue(procedure.standardErrorLineData.isFinished)
    }

    // MARK: - Input, environment, working directory

    func testStandardInputFromData() {
        let procedure = ProcessProcedure(executable: "cat", standardInput: .data(Data("from data\n".utf8)))
        run(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "from data\n")
    }

    func testLargeStandardInputFromDataReachesTheProgramWhole() {
        let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        let procedure = ProcessProcedure(executable: "cat", standardInput: .data(payload), standardOutput: .capture(limit: 1 << 20))
        run(procedure)
        XCTAssertEqual(procedure.output?.standardOutput, payload)
    }

    func testStandardInputFromAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("process-stdin-\(UUID().uuidString)")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let procedure = ProcessProcedure(executable: "cat", standardInput: .file(file))
        run(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "from a file")
    }

    func testInjectedInputBecomesStandardInput() {
        let source = ResultProcedure { Data("injected".utf8) }
        let procedure = ProcessProcedure(executable: "cat")
        procedure.injectResult(from: source)
        wait(for: source, procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "injected")
    }

    func testWithoutStandardInputTheProgramReadsEndOfFile() {
        let procedure = ProcessProcedure(executable: "wc", arguments: ["-c"])
        run(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString.trimmingCharacters(in: .whitespacesAndNewlines), "0")
    }

    func testEnvironmentReplacesTheParentsWhenGiven() {
        let procedure = ProcessProcedure(
            executable: "/bin/sh", arguments: ["-c", "echo \"$GREETING|$HOME\""], environment: ["GREETING": "hello"])
        run(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "hello|\n")
    }

    func testWorkingDirectoryIsWhereTheProgramStarts() {
        let procedure = ProcessProcedure(executable: "pwd", workingDirectory: URL(fileURLWithPath: "/usr"))
        run(procedure)
        XCTAssertEqual(procedure.output?.standardOutputString, "/usr\n")
    }

    // MARK: - Failures

    func testNonZeroExitFailsWithTheStatusAndTheTailOfStandardError() {
        let procedure = ProcessProcedure(shellCommand: "echo partial; echo 'disk on fire' >&2; exit 3")
        run(procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        guard let error = processError(procedure) else { return }
        XCTAssertEqual(error.result?.status, .exited(3))
        XCTAssertEqual(error.result?.standardOutputString, "partial\n")
        XCTAssertTrue(error.description.contains("exited with status 3"), error.description)
        XCTAssertTrue(error.description.contains("disk on fire"), error.description)
        XCTAssertNil(procedure.output)
    }

    func testAllowedExitCodesCountAsSuccess() {
        let procedure = ProcessProcedure(shellCommand: "exit 1", allowedExitCodes: [0, 1])
        run(procedure)
        assertProcedureFinished(procedure)
        XCTAssertEqual(procedure.output?.status, .exited(1))
    }

    func testAProgramKilledByASignalIsReportedAsSuch() {
        let procedure = ProcessProcedure(shellCommand: "echo dying >&2; kill -KILL $$")
        run(procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        guard let error = processError(procedure) else { return }
        XCTAssertEqual(error.result?.status, .signaled(SIGKILL))
        XCTAssertTrue(error.description.contains("killed by signal 9 (SIGKILL)"), error.description)
        XCTAssertTrue(error.description.contains("dying"), error.description)
    }

    func testDidExecuteObserversSeeTheRunningProgramsProcessIdentifier() throws {
        // ProcedureKit's `processDidLaunch` closure: here a did-execute observer, which runs
        // once execute() has started the program.
        let procedure = ProcessProcedure(shellCommand: "echo $$")
        let seen = LockedBox<Int32?>(nil)
        procedure.addDidExecuteBlockObserver { procedure in seen.mutate { $0 = procedure.processIdentifier } }
        run(procedure)
        assertProcedureFinished(procedure)
        let pid = try XCTUnwrap(seen.value)
        XCTAssertEqual(procedure.output?.standardOutputString, "\(pid)\n")
        XCTAssertEqual(procedure.processIdentifier, pid, "still known once it finished")
    }

    func testAProgramTerminatedByAnotherProcessFailsWithItsSignal() throws {
        // Only a cancel makes SIGTERM a cancellation; from anyone else it is a failure.
        let procedure = ProcessProcedure(shellCommand: "echo ready; exec sleep 1000", standardOutput: .lines)
        let queue = ProcedureQueue()
        _ = firstLine(of: procedure, on: queue)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        kill(pid, SIGTERM)
        wait(for: procedure, on: queue)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertEqual(processError(procedure)?.result?.status, .signaled(SIGTERM))
    }

    func testMissingExecutablePathFailsClearly() {
        let procedure = ProcessProcedure(executable: "/no/such/program")
        run(procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        guard case .executableNotFound("/no/such/program", _)? = processError(procedure) else {
            return XCTFail("\(procedure.errors)")
        }
        XCTAssertNil(procedure.processIdentifier, "nothing was started")
    }

    func testMissingExecutableNameFailsListingThePathSearched() {
        let procedure = ProcessProcedure(executable: "no-such-program-anywhere", environment: ["PATH": "/bin:/usr/bin"])
        run(procedure)
        guard case .executableNotFound(_, let searched)? = processError(procedure) else {
            return XCTFail("\(procedure.errors)")
        }
        XCTAssertEqual(searched, ["/bin", "/usr/bin"])
        XCTAssertTrue(processError(procedure)!.description.contains("searched PATH: /bin:/usr/bin"))
    }

    func testAFileThatIsNotAProgramFailsAsNotExecutable() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-program-\(UUID().uuidString)")
        try Data("just text".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let procedure = ProcessProcedure(executable: file.path)
        run(procedure)
        guard case .notExecutable? = processError(procedure) else { return XCTFail("\(procedure.errors)") }
    }

    func testMissingWorkingDirectoryFailsClearly() {
        let procedure = ProcessProcedure(executable: "pwd", workingDirectory: URL(fileURLWithPath: "/no/such/dir"))
        run(procedure)
        guard case .workingDirectoryUnusable("/no/such/dir", let reason)? = processError(procedure) else {
            return XCTFail("\(procedure.errors)")
        }
        XCTAssertEqual(reason, "no such directory")
        XCTAssertNil(procedure.processIdentifier)
    }

    func testAFileAsWorkingDirectoryFailsClearly() {
        let procedure = ProcessProcedure(executable: "pwd", workingDirectory: URL(fileURLWithPath: "/bin/sh"))
        run(procedure)
        guard case .workingDirectoryUnusable(_, "not a directory")? = processError(procedure) else {
            return XCTFail("\(procedure.errors)")
        }
    }

    func testUnreadableStandardInputFileFailsClearly() {
        let procedure = ProcessProcedure(executable: "cat", standardInput: .file(URL(fileURLWithPath: "/no/such/input")))
        run(procedure)
        guard case .standardInputUnreadable("/no/such/input", _)? = processError(procedure) else {
            return XCTFail("\(procedure.errors)")
        }
        XCTAssertNil(procedure.processIdentifier)
    }

    // MARK: - Reaping

    func testWithSIGCHLDIgnoredTheLostStatusIsReportedNotGuessed() {
        // Ignoring SIGCHLD makes the kernel reap children itself and throw their status away.
        let previous = signal(SIGCHLD, SIG_IGN)
        defer { signal(SIGCHLD, previous) }
        let procedure = ProcessProcedure(shellCommand: "exit 3")
        run(procedure)
        guard case .statusUnavailable? = processError(procedure) else { return XCTFail("\(procedure.errors)") }
    }

    func testAFinishedProcedureLeavesNoZombie() throws {
        let procedure = ProcessProcedure(executable: "/bin/true")
        run(procedure)
        assertProcedureFinished(procedure)
        let pid = try XCTUnwrap(procedure.processIdentifier)
        XCTAssertFalse(processExists(pid), "pid \(pid) still exists: not reaped")
    }

    func testBackgroundProcessesTheProgramLeftInItsGroupAreKilledWhenItExits() throws {
        // The shell exits at once; its background sleep still holds the output pipe. Without
        // the sweep the procedure would wait 1000 s for end-of-file.
        let procedure = ProcessProcedure(shellCommand: "sleep 1000 & echo $!")
        run(procedure)
        assertProcedureFinished(procedure)
        let background = try XCTUnwrap(Int32(procedure.output?.standardOutputString.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        assertDies(background)
    }
}

/// True if `pid` is a zombie (exited, waiting for its parent — for an orphan, init — to reap it).
func isZombie(_ pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = status.lastIndex(of: ")")
    else { return false }
    return status[status.index(close, offsetBy: 2)] == "Z"
}
