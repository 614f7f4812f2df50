import ProceduresTestSupport
import XCTest

@testable import Procedures

/// The system clock's decisions, taken under its lock, as a value driven without threads or
/// timers: which event arms the timer, for which deadline, and when an arming must be repeated.
final class SystemClockTimingTests: XCTestCase {
    /// Owns the entries; its own timer is never armed by these tests.
    private let owner = SystemClock { _, _ in }

    func testTheFirstCallbackArmsTheTimerForItsDeadline() {
        var timing = SystemClock.Timing()
        let (_, arming) = timing.insert(deadline: 10, owner: owner, action: {})
        XCTAssertEqual(arming, SystemClock.Arming(deadline: 10, generation: 1))
        XCTAssertEqual(timing.armedDeadline, 10)
    }

    func testOnlyAnEarlierDeadlineArmsTheTimerAgain() {
        var timing = SystemClock.Timing()
        _ = timing.insert(deadline: 10, owner: owner, action: {})
        XCTAssertNil(timing.insert(deadline: 20, owner: owner, action: {}).1)
        XCTAssertNil(timing.insert(deadline: 10, owner: owner, action: {}).1)
        XCTAssertEqual(timing.insert(deadline: 5, owner: owner, action: {}).1, SystemClock.Arming(deadline: 5, generation: 2))
    }

    func testCancellingTheEarliestDoesNotArmTheTimer() {
        var timing = SystemClock.Timing()
        let (first, _) = timing.insert(deadline: 10, owner: owner, action: {})
        _ = timing.insert(deadline: 20, owner: owner, action: {})
        XCTAssertNotNil(timing.heap.remove(first))
        XCTAssertEqual(timing.armedDeadline, 10, "the timer fires early, finds nothing due and re-arms")
        XCTAssertEqual(timing.armings, 1)
    }

    func testFiringTakesWhatIsDueInOrderAndArmsForTheNext() {
        var timing = SystemClock.Timing()
        let ran = LockedBox<[Int]>([])
        _ = timing.insert(deadline: 3, owner: owner, action: { ran.mutate { $0.append(3) } })
        _ = timing.insert(deadline: 1, owner: owner, action: { ran.mutate { $0.append(1) } })
        _ = timing.insert(deadline: 9, owner: owner, action: { ran.mutate { $0.append(9) } })
        var due: [@Sendable () -> Void] = []
        let next = timing.fire(at: 5, into: &due)
        for action in due { action() }
        XCTAssertEqual(ran.value, [1, 3])
        XCTAssertEqual(next, SystemClock.Arming(deadline: 9, generation: 3))
        XCTAssertEqual(timing.heap.count, 1)
    }

    func testFiringWithNothingLeftIdlesTheTimerAsADecisionOfItsOwn() {
        var timing = SystemClock.Timing()
        let (_, first) = timing.insert(deadline: 1, owner: owner, action: {})
        var due: [@Sendable () -> Void] = []
        XCTAssertNil(timing.fire(at: 1, into: &due))
        XCTAssertEqual(due.count, 1)
        XCTAssertNil(timing.armedDeadline)
        // The arming of the first callback, applied after the idling, is now stale: it is
        // repeated for no deadline, since none is decided.
        XCTAssertNil(timing.armed(first!))
    }

    func testAnArmingOvertakenByANewerDecisionIsRepeatedForTheNewest() {
        var timing = SystemClock.Timing()
        let (_, far) = timing.insert(deadline: 70, owner: owner, action: {})
        let (_, near) = timing.insert(deadline: 50, owner: owner, action: {})
        // The near arming applied first finds no newer decision; the far one, applied last,
        // must arm again for the near deadline.
        XCTAssertNil(timing.armed(near!))
        XCTAssertEqual(timing.armed(far!), SystemClock.Arming(deadline: 50, generation: 2))
        XCTAssertEqual(timing.rearmsRepeated, 1)
    }
}
