import Foundation
import Procedures

/// What the assertions of both test frameworks check about a finished procedure: each check
/// returns the ways the procedure falls short (empty when it passes), as failure messages that
/// carry its name, stage and errors. The XCTest assertions report each message; the Swift
/// Testing properties are true when there is none.
package enum ProcedureOutcomeCheck {
    /// Finished, not cancelled, without errors.
    package static func finished(_ procedure: Procedure) -> [String] {
        let summary = procedure.stateSummary
        var problems: [String] = []
        if !procedure.isFinished { problems.append("\(summary) has not finished") }
        if procedure.isCancelled { problems.append("\(summary) was cancelled") }
        if !procedure.errors.isEmpty { problems.append("\(summary) has errors") }
        return problems
    }

    /// Finished, not cancelled, with errors; with `count`, exactly that many.
    package static func finishedWithErrors(_ procedure: Procedure, count: Int? = nil) -> [String] {
        let summary = procedure.stateSummary
        var problems: [String] = []
        if !procedure.isFinished { problems.append("\(summary) has not finished") }
        if procedure.isCancelled { problems.append("\(summary) was cancelled") }
        let errors = procedure.errors.count
        if errors == 0 { problems.append("\(summary) has no errors") }
        if let count, errors != 0, errors != count {
            problems.append("\(summary) has \(errors) error(s), not \(count)")
        }
        return problems
    }

    /// Cancelled and finished; `withErrors` says whether it must carry errors (true), none
    /// (false), or either (nil).
    package static func cancelled(_ procedure: Procedure, withErrors: Bool?) -> [String] {
        let summary = procedure.stateSummary
        var problems: [String] = []
        if !procedure.isCancelled { problems.append("\(summary) was not cancelled") }
        if !procedure.isFinished { problems.append("\(summary) has not finished") }
        switch (withErrors, procedure.failed) {
        case (true?, false): problems.append("\(summary) has no errors")
        case (false?, true): problems.append("\(summary) has errors")
        default: break
        }
        return problems
    }
}
