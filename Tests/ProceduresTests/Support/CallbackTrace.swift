import Foundation
import ProceduresTesting
import XCTest

/// An ordered log of callbacks (overrides, `execute()` and observers), each entry recorded
/// through a `ProcedureEventRecorder` so overlapping callbacks fail the test.
final class CallbackTrace: @unchecked Sendable {
    // @unchecked: `entries` lives in a LockedBox; `recorder` is thread-safe.
    let recorder: ProcedureEventRecorder
    private let box = LockedBox<[String]>([])

    init(file: StaticString = #filePath, line: UInt = #line) {
        recorder = ProcedureEventRecorder(file: file, line: line)
    }

    var entries: [String] { box.value }

    func log(_ entry: String, of procedure: Procedure, as event: ProcedureEventRecorder.Event = .other) {
        recorder.record(event, of: procedure) { box.mutate { $0.append(entry) } }
    }

    /// Adds an observer that logs every observer event of `procedure`, running `body` (if
    /// given) inside the callback of `event`.
    func observe(
        _ procedure: Procedure, reactingTo event: ProcedureEventRecorder.Event? = nil,
        with body: (@Sendable (Procedure) -> Void)? = nil
    ) {
        procedure.addObserver(TraceObserver(trace: self, event: event, body: body))
    }
}
