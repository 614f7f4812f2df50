import Foundation
import Procedures
import ProceduresProcess
import ProceduresTestSupport
import ProceduresTesting
import XCTest

final class ProcessConcurrencyTests: XCTestCase {
    func testTwoHundredShortProcessesAtWidthEight() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let procedures = (0..<200).map { index in
            ProcessProcedure(executable: "/bin/sh", arguments: ["-c", "echo $0", "\(index)"])
        }
        wait(forAll: procedures, on: queue, timeout: 120)
        for (index, procedure) in procedures.enumerated() {
            assertProcedureFinished(procedure)
            XCTAssertEqual(procedure.output?.standardOutputString, "\(index)\n")
        }
    }

    func testThousandsOfShortProcessesEachDeliverTheirOutputOnce() {
        // Every process registers three descriptors with the event loop and drops them again:
        // the churn that crashed libdispatch's own read sources.
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let count = stressIterations(1_000)
        let procedures = (0..<count).map { index in
            ProcessProcedure(executable: "/bin/sh", arguments: ["-c", "echo $0; echo $0 >&2", "\(index)"])
        }
        wait(forAll: procedures, on: queue, timeout: 300)
        for (index, procedure) in procedures.enumerated() {
            XCTAssertEqual(procedure.output?.standardOutputString, "\(index)\n")
            XCTAssertEqual(procedure.output?.standardErrorString, "\(index)\n")
        }
    }

    func testManyProcessesWithLargeOutputsKeepTheirOwnOutput() {
        // Each program writes more than a pipe holds (64 KiB), so reading must keep up while
        // others run; every result must be its own.
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let count = stressIterations(40)
        let procedures = (0..<count).map { index in
            ProcessProcedure(executable: "/bin/sh", arguments: ["-c", "yes $0 | head -c 100000", "\(index)"])
        }
        wait(forAll: procedures, on: queue, timeout: 120)
        for (index, procedure) in procedures.enumerated() {
            let text = procedure.output?.standardOutputString ?? ""
            XCTAssertEqual(text.utf8.count, 100_000)
            XCTAssertTrue(text.hasPrefix("\(index)\n\(index)\n"))
        }
    }
}
