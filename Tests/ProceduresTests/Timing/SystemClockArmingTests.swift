import Dispatch
import Foundation
import ProceduresTestSupport
import XCTest

@testable import Procedures

/// The system clock arms its one timer holding no lock, so two threads may arm it in the
/// opposite order to their decisions. Whoever arms last must leave it armed for the latest
/// decision: a nearer deadline is never left waiting for a farther one armed after it.
final class SystemClockArmingTests: XCTestCase {
    func testAnArmingOvertakenByANearerDeadlineArmsTheTimerAgainForIt() {
        let far: UInt64 = 7_000 * 1_000_000_000  // seconds of uptime: far beyond this test
        let near: UInt64 = 5_000 * 1_000_000_000
        let armed = LockedBox<[UInt64]>([])
        let farInItsWindow = DispatchSemaphore(value: 0)
        let nearArmed = DispatchSemaphore(value: 0)
        let paused = LockedBox(false)
        let clock = SystemClock { _, deadline in
            // The far arming stops between its decision and the timer, once, until the near
            // one has been decided and armed.
            let pause = deadline.uptimeNanoseconds == far && paused.mutate { (done: inout Bool) -> Bool in
                defer { done = true }
                return !done
            }
            if pause {
                farInItsWindow.signal()
                nearArmed.wait()
            }
            armed.mutate { $0.append(deadline.uptimeNanoseconds) }
        }
        let farScheduled = expectation(description: "the far deadline scheduled")
        let farEntry = LockedBox<(any Cancelable)?>(nil)
        Thread {
            let entry = clock.schedule(at: 7_000) {}
            farEntry.mutate { $0 = entry }
            farScheduled.fulfill()
        }.start()
        farInItsWindow.wait()
        let nearEntry = clock.schedule(at: 5_000) {}  // decided and armed while the far one waits
        nearArmed.signal()
        wait(for: [farScheduled], timeout: 10)
        XCTAssertEqual(armed.value, [near, far, near], "the timer was left armed for the far deadline")
        XCTAssertEqual(clock.repeatedArmingCount, 1)
        nearEntry.cancel()
        farEntry.value?.cancel()
        XCTAssertEqual(clock.pendingCount, 0)
    }
}
