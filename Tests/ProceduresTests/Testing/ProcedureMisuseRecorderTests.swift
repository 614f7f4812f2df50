import Foundation
import ProceduresTesting
import XCTest

/// `ProcedureMisuseRecorder` records while installed and always puts the previous handler back.
final class ProcedureMisuseRecorderTests: XCTestCase {
    private var original: (@Sendable (ProcedureMisuse) -> Void)!
    /// Reports that reached the handler installed before each recorder.
    private let outer = LockedBox<[ProcedureMisuse.Kind]>([])

    override func setUp() {
        super.setUp()
        original = ProcedureMisuse.handler
        let outer = self.outer
        ProcedureMisuse.handler = { report in outer.mutate { $0.append(report.kind) } }
    }

    override func tearDown() {
        ProcedureMisuse.handler = original
        super.tearDown()
    }

    /// A finished procedure; each further `finish()` is reported as `finishedTwice`.
    private func finishedProcedure() -> BlockProcedure {
        let procedure = BlockProcedure {}
        wait(for: procedure)
        return procedure
    }

    func testRecordsReportsAboutEachSubjectAndStopRestoresThePreviousHandler() {
        let first = finishedProcedure()
        let second = finishedProcedure()
        let misuse = ProcedureMisuseRecorder()
        first.finish()
        second.finish()
        first.finish()
        XCTAssertEqual(misuse.kinds(about: first), [.finishedTwice, .finishedTwice])
        XCTAssertEqual(misuse.reports(about: second).map(\.kind), [.finishedTwice])
        XCTAssertEqual(misuse.reports(aboutAny: [first, second]).count, 3)
        XCTAssertEqual(misuse.all.count, 3)
        XCTAssertEqual(outer.value, [], "recorded reports are not passed on")

        misuse.stop()
        misuse.stop()  // harmless
        first.finish()
        XCTAssertEqual(misuse.all.count, 3, "nothing is recorded once stopped")
        XCTAssertEqual(outer.value, [.finishedTwice], "the previous handler is back")
    }

    func testReleasingTheRecorderRestoresThePreviousHandler() {
        let procedure = finishedProcedure()
        do {
            let misuse = ProcedureMisuseRecorder()
            procedure.finish()
            XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
        }
        procedure.finish()
        XCTAssertEqual(outer.value, [.finishedTwice])
    }
}
