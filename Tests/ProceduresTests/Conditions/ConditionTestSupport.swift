import Foundation
import Procedures
import ProceduresTesting
import XCTest

/// A procedure that, once executing, stays so until `release()` is called: lets a test hold
/// a procedure (and its exclusivity categories) for as long as it needs.
final class HeldProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `executing` is an expectation (thread-safe); `box` is locked.
    let executing: XCTestExpectation
    private let box = LockedBox<(released: Bool, executed: Bool)>((false, false))

    init(name: String) {
        executing = XCTestExpectation(description: "\(name) executing")
        super.init()
        self.name = name
    }

    var didExecute: Bool { box.value.executed }

    override func execute() {
        let releasedEarly = box.mutate { state -> Bool in
            state.executed = true
            return state.released
        }
        executing.fulfill()
        if releasedEarly { finish() }
    }

    /// Lets it finish (now if executing, else as soon as it executes).
    func release() {
        let executed = box.mutate { state -> Bool in
            state.released = true
            return state.executed
        }
        if executed { finish() }
    }

    /// Itself, released in advance: it finishes as soon as it executes.
    func releasedAtOnce() -> Self {
        release()
        return self
    }
}

/// A condition whose answer the test gives later: `evaluate` records the call and keeps the
/// completion.
final class ManualCondition: Condition, @unchecked Sendable {
    // @unchecked: `completion` and `count` are in a LockedBox; the expectation is thread-safe.
    let evaluating = XCTestExpectation(description: "condition evaluating")
    private let box = LockedBox<(completion: (@Sendable (ConditionResult) -> Void)?, count: Int)>((nil, 0))

    var evaluationCount: Int { box.value.count }

    override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        box.mutate {
            $0.completion = completion
            $0.count += 1
        }
        evaluating.fulfill()
    }

    func complete(_ result: ConditionResult) {
        box.value.completion?(result)
    }

    /// Drops the completion kept by `evaluate` (and what it holds: the procedure).
    func forgetCompletion() {
        box.mutate { $0.completion = nil }
    }
}

/// A condition that records its evaluations into a shared log and answers `result` at once.
final class LoggingCondition: Condition, @unchecked Sendable {
    // @unchecked: immutable; the log is locked.
    let log: LockedBox<[String]>
    let result: ConditionResult

    init(_ name: String, log: LockedBox<[String]>, result: ConditionResult = .satisfied) {
        self.log = log
        self.result = result
        super.init()
        self.name = name
    }

    override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        log.mutate { $0.append(name) }
        completion(result)
    }
}

/// The condition error a procedure was cancelled with, if it is one.
func conditionFailure(of procedure: Procedure) -> (name: String, error: any Error)? {
    for error in procedure.errors {
        if case ProcedureError.conditionFailed(let name, let underlying) = error { return (name, underlying) }
    }
    return nil
}
