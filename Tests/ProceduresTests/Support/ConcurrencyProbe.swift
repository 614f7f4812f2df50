import Foundation
import ProceduresTesting
import XCTest

/// Counts how many of the procedures it watches execute at once.
final class ConcurrencyProbe: Sendable {
    private let running = ConcurrencyCounter()
    private let started = LockedBox(0)

    var maximum: Int { running.maximum }
    var startedCount: Int { started.value }

    /// A procedure that holds a "running" slot for `duration` seconds (on a timer).
    func makeChild(duration: TimeInterval = 0.02) -> BlockProcedure {
        BlockProcedure(asyncBlock: { [running, started] procedure in
            started.mutate { $0 += 1 }
            running.enter()
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) {
                running.leave()
                procedure.finish()
            }
        })
    }
}
