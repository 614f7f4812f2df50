import Foundation
@testable import Procedures
import ProceduresTesting
import XCTest

/// The tracker's rules that threads racing each other rely on, checked one step at a time.
final class ProgressTrackerTests: XCTestCase {
    func testAChildsChangeThatArrivesLateIsIgnored() {
        let child = BlockProcedure {}
        let group = GroupProcedure(operations: [child])
        let tracker = group.makeProgressTracker()
        let key = ObjectIdentifier(child)
        // Two changes of the child reach the group in the wrong order: the newer one stays.
        tracker.childChanged(key, fraction: 0.5, version: 5)
        tracker.childChanged(key, fraction: 0.3, version: 3)
        XCTAssertEqual(tracker.update.fractionCompleted, 0.5)
        tracker.childChanged(key, fraction: 0.7, version: 6)
        XCTAssertEqual(tracker.update.fractionCompleted, 0.7)
        group.cancel()
        wait(for: group)
    }

    func testAChildCountedTwiceCountsOnce() {
        let child = BlockProcedure {}
        let group = GroupProcedure(operations: [child])
        let tracker = group.makeProgressTracker()
        tracker.count(child, tracker: nil)
        tracker.count(child, tracker: nil)
        XCTAssertEqual(tracker.update.totalUnitCount, 1)
        tracker.childFinished(ObjectIdentifier(child), cancelled: false)
        tracker.childFinished(ObjectIdentifier(child), cancelled: false)
        XCTAssertEqual(tracker.update.completedUnitCount, 1)
        group.cancel()
        wait(for: group)
    }

    func testNothingMovesAStoppedTracker() {
        let procedure = BlockProcedure {}
        let tracker = procedure.makeProgressTracker()
        tracker.setUnits(completed: 1, total: 4)
        tracker.stop()
        tracker.setUnits(completed: 3)
        tracker.procedureFinishing(cancelled: false, final: true)
        XCTAssertEqual(tracker.update.fractionCompleted, 0.25)
        XCTAssertTrue(tracker.update.isCancelled)
        XCTAssertTrue(tracker.update.isFinal)
    }
}
