import Foundation
import ProceduresTestSupport
import XCTest

@testable import Procedures

/// A drain loop that runs out of work while procedures stream in may keep its Dispatch thread
/// for a few microseconds, but never on a queue's `underlyingQueue`, which is the user's own.
final class DrainLoopLingerTests: XCTestCase {
    /// Procedures added one the moment the one before finished (the pattern that makes a loop
    /// on a global queue linger) never make a loop linger on the user's serial queue, whose
    /// other blocks it would hold up.
    func testALoopOnAnUnderlyingQueueNeverLingers() {
        let queue = ProcedureQueue()
        queue.underlyingQueue = DispatchQueue(label: "drain.loop.linger.tests")
        addEachAsThePreviousRuns(stressIterations(2_000), to: queue)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(queue.scheduler.lingerCount, 0)
    }
}
