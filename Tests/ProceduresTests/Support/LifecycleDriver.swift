import Foundation
import XCTest

@testable import Procedures

/// Builds ``ProcedureLifecycle`` machines in a given stage and names their actions, for the
/// thread-free lifecycle tests.
enum LifecycleDriver {
    struct Failure: Error, Equatable {
        var code = 0
    }

    /// Claimed by `owner`, still holding the claim's own count.
    static func claimed(by owner: StandInOwner, dependencies: Int = 0) -> ProcedureLifecycle {
        var machine = ProcedureLifecycle()
        guard case .claimed = machine.claim(owner: owner, dependencies: dependencies) else {
            XCTFail("claim refused")
            return machine
        }
        return machine
    }

    /// Claimed by `owner` and ready: handed to its scheduler.
    static func ready(by owner: StandInOwner) -> ProcedureLifecycle {
        var machine = claimed(by: owner)
        XCTAssertTrue(schedules(machine.dependenciesFinished(1), on: owner))
        return machine
    }

    /// Running on a slot of `owner`'s scheduler.
    static func running(by owner: StandInOwner) -> ProcedureLifecycle {
        var machine = ready(by: owner)
        guard case .start = machine.slotGranted() else {
            XCTFail("a ready procedure starts on its slot")
            return machine
        }
        return machine
    }

    /// Started by hand (no owner), running.
    static func runningWithoutOwner() -> ProcedureLifecycle {
        var machine = ProcedureLifecycle()
        _ = machine.claim(owner: nil, dependencies: 0)
        _ = machine.dependenciesFinished(1)
        machine.startUnscheduled()
        return machine
    }

    /// Finished after running on a slot of `owner`'s scheduler.
    static func finished(by owner: StandInOwner) -> ProcedureLifecycle {
        var machine = running(by: owner)
        _ = machine.requestFinish(errors: [])
        _ = machine.beginFinishing()
        _ = machine.finish()
        return machine
    }

    static func name(_ action: ReadyAction) -> String {
        switch action {
        case .schedule: return "schedule"
        case .start: return "start"
        case .checkConditions: return "checkConditions"
        case .keepWaiting: return "keepWaiting"
        case .notWaiting: return "notWaiting"
        }
    }

    static func schedules(_ action: ReadyAction, on owner: StandInOwner) -> Bool {
        if case .schedule(let scheduler) = action { return scheduler === owner.scheduler }
        return false
    }
}
