import Foundation
import ProceduresTesting
import XCTest

/// A queue delegate that logs its calls as "<event> <name>", with the errors' ids and the
/// procedure's `isFinished` for the finish events.
final class RecordingQueueDelegate: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked: the log lives in a LockedBox.
    private let log = LockedBox<[String]>([])
    /// Called after each did-finish, for tests that wait on the delegate.
    let onDidFinish: (@Sendable (Procedure) -> Void)?

    init(onDidFinish: (@Sendable (Procedure) -> Void)? = nil) { self.onDidFinish = onDidFinish }

    var events: [String] { log.value }

    func events(of name: String) -> [String] {
        events.filter { $0.hasSuffix(" \(name)") || $0.contains(" \(name) ") }
    }

    private func ids(_ errors: [any Error]) -> String {
        errors.map { ($0 as? TestError)?.id ?? "\($0)" }.joined(separator: ",")
    }

    func procedureQueue(_ queue: ProcedureQueue, willAdd operation: Operation) {
        log.mutate { $0.append("willAdd \(operation.name ?? "?")") }
    }

    func procedureQueue(_ queue: ProcedureQueue, didAdd operation: Operation) {
        log.mutate { $0.append("didAdd \(operation.name ?? "?")") }
    }

    func procedureQueue(_ queue: ProcedureQueue, willFinish procedure: Procedure, withErrors errors: [any Error]) {
        let finished = procedure.isFinished
        log.mutate { $0.append("willFinish \(procedure.name ?? "?") [\(ids(errors))] finished=\(finished)") }
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinish procedure: Procedure, withErrors errors: [any Error]) {
        let finished = procedure.isFinished
        log.mutate { $0.append("didFinish \(procedure.name ?? "?") [\(ids(errors))] finished=\(finished)") }
        onDidFinish?(procedure)
    }
}
