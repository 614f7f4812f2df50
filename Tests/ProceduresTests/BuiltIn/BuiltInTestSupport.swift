import Foundation
import ProceduresTesting
import XCTest

/// A procedure that finishes only when cancelled (or when told to with `finish()`), and says
/// when it started executing.
final class BuiltInWaitForCancel: Procedure, @unchecked Sendable {
    // @unchecked: no mutable state of its own.
    init(name: String) {
        super.init()
        self.name = name
    }

    override func execute() {}

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if isExecuting { finish() }
    }
}

/// Counts how many of the procedures it watches execute at once.
final class BuiltInConcurrencyProbe: Sendable {
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

/// The ids of the `TestError`s in `errors`, sorted, so order-independent comparisons read well.
func builtInTestErrorIDs(_ errors: [any Error]) -> [String] {
    errors.compactMap { ($0 as? TestError)?.id }.sorted()
}

/// True if any of `errors` is a ``ProcedureError/parentCancelled(errors:)``.
func builtInContainsParentCancelled(_ errors: [any Error]) -> Bool {
    errors.contains {
        if case .parentCancelled = $0 as? ProcedureError { return true }
        return false
    }
}

/// The errors inside the first ``ProcedureError/parentCancelled(errors:)`` of `errors`.
func builtInParentCancelledErrors(_ errors: [any Error]) -> [any Error]? {
    for error in errors {
        if case .parentCancelled(let inner) = error as? ProcedureError { return inner }
    }
    return nil
}

extension XCTestCase {
    /// Waits until `procedures` have finished (and their did-finish observers ran) without
    /// adding any of them to a queue.
    ///
    /// Use it for a group's children: `wait(for:)` adds a procedure that is not yet enqueued
    /// to a fresh queue, which steals a child its group has not enqueued yet (the group then
    /// never hears that child finish).
    func builtInWaitUntilFinished(
        _ procedures: Procedure..., timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line
    ) {
        let finished = XCTestExpectation(description: "\(procedures.count) procedure(s) finished")
        finished.expectedFulfillmentCount = max(procedures.count, 1)
        if procedures.isEmpty { finished.fulfill() }
        for procedure in procedures { procedure.addDidFinishBlockObserver { _, _ in finished.fulfill() } }
        if XCTWaiter().wait(for: [finished], timeout: timeout) != .completed {
            let lines = procedures.filter { !$0.isFinished }.map { "  - \($0.stateSummary)" }.joined(separator: "\n")
            XCTFail("Timed out after \(timeout) s waiting for:\n\(lines)", file: file, line: line)
        }
    }
}
