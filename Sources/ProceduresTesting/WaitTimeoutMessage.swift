import Foundation
import Procedures
import ProceduresSupport

/// The failure message of `wait(for:)` (XCTest and Swift Testing alike) when it times out: one line per unfinished procedure,
/// with the reason it is not running, and a hint that points the right way.
package enum WaitTimeoutMessage {
    package static func make(timeout: TimeInterval, result: String, procedures: [Procedure]) -> String {
        let unfinished = procedures.filter { !$0.isFinished }
        var forgotFinish = false
        let lines = unfinished.map { procedure -> String in
            guard let reason = procedure.waitingReason else {
                guard procedure.isExecuting else { return "  - \(procedure.stateSummary)" }
                forgotFinish = true
                return "  - \(procedure.stateSummary): did every code path call finish()?"
            }
            var line = "  - \(procedure.displayName): \(reason)"
            if case .clock(let clock, _) = reason, clock is ManualClock { line += ": advance it" }
            return line
        }
        var message = "Timed out after \(DurationText.seconds(timeout)) waiting for \(unfinished.count) of \(procedures.count) procedure(s) to finish (\(result)):\n"
        message += lines.joined(separator: "\n")
        if forgotFinish { message += "\nAn executing procedure finishes only when it calls finish()." }
        return message
    }
}
