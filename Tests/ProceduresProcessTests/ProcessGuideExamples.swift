import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import ProceduresTesting
import XCTest

// The process snippets of Documentation/ProcessesAndNetwork.md, compiled and run.
final class ProcessGuideExamples: XCTestCase {
    func testRunAProgramAndReadItsOutput() {
        let queue = ProcedureQueue()
        let list = ProcessProcedure(executable: "ls", arguments: ["-d", "/tmp"])
        let count = ProcessProcedure(shellCommand: "printf 'a\\nb\\n' | wc -l")
        queue.addOperations([list, count], waitUntilFinished: false)
        // … later, once they finished:
        wait(for: list, count)
        XCTAssertEqual(list.output?.standardOutputString, "/tmp\n")
        XCTAssertEqual(count.output?.standardOutputString.trimmingCharacters(in: .whitespaces), "2\n")
    }

    func testFollowALongRunningProgramLineByLine() {
        let queue = ProcedureQueue()
        let seen = LockedBox<[String]>([])
        let log = ProcessProcedure(
            shellCommand: "for i in 1 2 3; do echo step $i; done", standardOutput: .lines)
        log.standardOutputLines.onSuccess(context: .immediate) { line in
            seen.mutate { $0.append(line) }  // "step 1", "step 2", "step 3"
        }
        queue.addOperation(log)
        wait(for: log)
        // Immediate delivery happens before the procedure finishes; the wait only turns a
        // missing line into a clear failure instead of a short array.
        let delivered = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in seen.value.count >= 3 }, object: nil)
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(seen.value, ["step 1", "step 2", "step 3"])
    }

    func testAFailedProgramSaysWhy() {
        let check = ProcessProcedure(shellCommand: "echo 'no such table' >&2; exit 2")
        wait(for: check)
        if let error = check.errors.first as? ProcessProcedureError, let result = error.result {
            print(result.status)               // exited with status 2
            print(result.standardErrorTail)    // no such table
            XCTAssertEqual(result.status, .exited(2))
            XCTAssertEqual(result.standardErrorTail, "no such table\n")
        } else {
            XCTFail("\(check.errors)")
        }
    }

    func testAToolsDescendantsEndWithIt() throws {
        // Process-wide and for good: run in a child copy of the test binary.
        guard isChild else { return assertChildSurvives("testAToolsDescendantsEndWithIt") }
        let mechanism = ProcessContainment.enable(controlGroups: true)  // first thing in main()
        print("containment: \(mechanism)")  // "cgroup" where cgroups can be made, else "subreaper"
        let queue = ProcedureQueue()
        // Starts a daemon (a double fork: its parent exits at once) and exits.
        let start = ProcessProcedure(shellCommand: "sleep 0.1; (setsid sleep 100 >/dev/null 2>&1 & echo $!)")
        queue.addOperation(start)
        wait(for: start)
        let daemon = try XCTUnwrap(start.output.flatMap { Int32($0.standardOutputString.trimmingCharacters(in: .whitespacesAndNewlines)) })
        XCTAssertGreaterThanOrEqual(mechanism, .subreaper)
        if mechanism == .controlGroup {
            XCTAssertFalse(processExists(daemon), "the daemon outlived the program's procedure")
        }

        let finished = expectation(description: "orphans ended")
        // Last thing, once every procedure has finished: no orphan is left to init.
        ProcessContainment.endAdoptedOrphans {
            finished.fulfill()  // a tool calls exit(status) here
        }
        wait(for: [finished], timeout: 10)
        XCTAssertFalse(processExists(daemon), "the daemon outlived the tool")
    }
}
