import Foundation
import Procedures
import ProceduresSupport

/// What the manual-clock waits of both test frameworks wait for, and what they say when it
/// does not come: the XCTest helpers and the Swift Testing ones differ only in how they wait.
package struct ManualClockWait: Sendable {
    /// What is awaited, for the failure message.
    package let description: String
    /// Whether the pending deadlines (earliest first) are the awaited ones.
    package let predicate: @Sendable (_ deadlines: [TimeInterval]) -> Bool

    package init(description: String, predicate: @escaping @Sendable (_ deadlines: [TimeInterval]) -> Bool) {
        self.description = description
        self.predicate = predicate
    }

    /// A callback due exactly at `target` (within rounding), the one an advance to `target`
    /// steps through; one due earlier does not count.
    package static func callback(dueAt target: TimeInterval) -> ManualClockWait {
        let tolerance = Swift.max(1, abs(target)) * 1e-9
        return ManualClockWait(description: "a callback due at \(target) on the manual clock") { deadlines in
            deadlines.contains { abs($0 - target) <= tolerance }
        }
    }

    /// At least `count` callbacks pending.
    package static func scheduled(count: Int) -> ManualClockWait {
        ManualClockWait(description: "\(count) callback(s) pending on the manual clock") { $0.count >= count }
    }

    /// The failure message when `clock` did not get there within `timeout` seconds.
    package func timeoutMessage(timeout: TimeInterval, clock: ManualClock) -> String {
        "Timed out after \(DurationText.seconds(timeout)) waiting for \(description); pending deadlines: \(clock.pendingDeadlines), now: \(clock.now)"
    }
}
