import Foundation
import ProceduresTesting
import XCTest

/// A test case that records every ``ProcedureMisuse`` report made while each test runs, in
/// ``misuse``, and puts the previous handler back afterwards.
class MisuseRecordingTestCase: XCTestCase {
    /// The misuse reports of the running test.
    private(set) var misuse: ProcedureMisuseRecorder!

    override func setUp() {
        super.setUp()
        misuse = ProcedureMisuseRecorder()
    }

    override func tearDown() {
        misuse.stop()
        misuse = nil
        super.tearDown()
    }
}
