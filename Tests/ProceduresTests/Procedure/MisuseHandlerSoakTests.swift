import Foundation
import ProceduresTesting
import XCTest

/// `ProcedureMisuse.handler` is read on every report: reading it must cost the same however
/// often it was read before (a process may report misuse for days), and never exhaust the stack.
final class MisuseHandlerSoakTests: XCTestCase {
    private var previous: (@Sendable (ProcedureMisuse) -> Void)?

    override func setUp() {
        super.setUp()
        previous = ProcedureMisuse.handler
    }

    override func tearDown() {
        if let previous { ProcedureMisuse.handler = previous }
        super.tearDown()
    }

    func testReportsCostTheSameAfterHundredsOfThousandsOfReportsAndReads() {
        let count = LockedBox(0)
        ProcedureMisuse.handler = { _ in count.mutate { $0 += 1 } }
        // One procedure finished by hand before it starts: the first finish is remembered,
        // every later one is a reported `finishedTwice`.
        let procedure = BlockProcedure {}
        procedure.finish()

        func report(_ times: Int) -> TimeInterval {
            let start = Date()
            for _ in 0..<times { procedure.finish() }
            return Date().timeIntervalSince(start)
        }
        // Phases of 20,000 reports, compared as the better of two (first) and of three (last)
        // in a row: that forgives a burst of load from other processes, never growth, which
        // makes every later phase slower still.
        let phase = 20_000
        let first = min(report(phase), report(phase))
        // The middle of the run, with the handler read on its own as well.
        for _ in 0..<100_000 { _ = ProcedureMisuse.handler }
        _ = report(250_000 - 5 * phase)
        let last = min(report(phase), report(phase), report(phase))
        XCTAssertEqual(count.value, 250_000)
        XCTAssertLessThanOrEqual(
            last, 2 * first + 0.01,
            "the last \(phase) reports took \(last) s, the first \(phase) took \(first) s")

        // The handler still works, called from another thread.
        let arrived = expectation(description: "report from another thread")
        ProcedureMisuse.handler = { report in
            if report.kind == .finishedTwice, !Thread.isMainThread { arrived.fulfill() }
        }
        DispatchQueue.global().async { procedure.finish() }
        wait(for: [arrived], timeout: 10)
    }
}
