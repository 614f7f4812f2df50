import Foundation
import Procedures

/// Records the callbacks of the procedures it observes and fails the test (XCTest or Swift
/// Testing) if two callbacks of one procedure ever overlap (the library promises they never do).
///
/// Attach it as an observer, and wrap your own callbacks (`execute()`, overrides) in
/// ``record(_:of:during:)`` so they are checked too; ``TestProcedure`` does this for you.
///
/// ```swift
/// let recorder = ProcedureEventRecorder()
/// let procedure = TestProcedure(recorder: recorder)
/// wait(for: procedure)
/// XCTAssertEqual(recorder.events(of: procedure), [.willExecute, .execute, .didExecute, .willFinish, .didFinish])
/// ```
public final class ProcedureEventRecorder: ProcedureObserver, @unchecked Sendable {
    // @unchecked: `log`, `active` and `overlapMessages` are only touched under `lock`; the
    // other properties are immutable.

    /// A callback kind.
    public enum Event: String, Sendable, Equatable {
        /// A will-execute observer call.
        case willExecute
        /// `execute()` itself (recorded by ``TestProcedure`` or your own `record` call).
        case execute
        /// A did-execute observer call.
        case didExecute
        /// A will-cancel observer call.
        case willCancel
        /// A did-cancel observer call.
        case didCancel
        /// A will-add (produce) observer call.
        case willAdd
        /// A did-add (produce) observer call.
        case didAdd
        /// A will-finish observer call.
        case willFinish
        /// A did-finish observer call.
        case didFinish
        /// A callback of your own, recorded with ``ProcedureEventRecorder/record(_:of:during:)``.
        case other
    }

    private let lock = NSLock()
    private var log: [ObjectIdentifier: [Event]] = [:]
    private var active: [ObjectIdentifier: Event] = [:]
    private var overlapMessages: [String] = []
    private let failsTest: Bool
    private let file: StaticString
    private let line: UInt

    /// - Parameter failsTest: whether an overlap fails the test at once (default true): with
    ///   `XCTFail` in an XCTest test, with an issue in a Swift Testing one. The overlaps are
    ///   also kept in ``overlaps``.
    public init(failsTest: Bool = true, file: StaticString = #filePath, line: UInt = #line) {
        self.failsTest = failsTest
        self.file = file
        self.line = line
    }

    /// Records `event` of `procedure` around `body`, checking that no other callback of the
    /// same procedure is running meanwhile.
    public func record<T>(_ event: Event, of procedure: Procedure, during body: () throws -> T) rethrows -> T {
        let key = ObjectIdentifier(procedure)
        let overlap = lock.withLock { () -> String? in
            log[key, default: []].append(event)
            if let running = active[key] {
                let message = "\(procedure.name ?? "procedure"): \(event) overlapped \(running)"
                overlapMessages.append(message)
                return message
            }
            active[key] = event
            return nil
        }
        if let overlap, failsTest {
            TestFailure.record("Callbacks overlapped: \(overlap)", file: file, line: line)
        }
        defer { if overlap == nil { lock.withLock { active[key] = nil } } }
        return try body()
    }

    /// The events recorded for `procedure`, in order.
    public func events(of procedure: Procedure) -> [Event] {
        lock.withLock { log[ObjectIdentifier(procedure)] ?? [] }
    }

    /// Every overlap seen so far.
    public var overlaps: [String] { lock.withLock { overlapMessages } }

    /// Records the event and checks it overlaps nothing.
    public func willExecute(_ procedure: Procedure) { record(.willExecute, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func didExecute(_ procedure: Procedure) { record(.didExecute, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func willCancel(_ procedure: Procedure, errors: [any Error]) { record(.willCancel, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func didCancel(_ procedure: Procedure, errors: [any Error]) { record(.didCancel, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func procedure(_ procedure: Procedure, willAdd operation: Operation) { record(.willAdd, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func procedure(_ procedure: Procedure, didAdd operation: Operation) { record(.didAdd, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func willFinish(_ procedure: Procedure, errors: [any Error]) { record(.willFinish, of: procedure) {} }
    /// Records the event and checks it overlaps nothing.
    public func didFinish(_ procedure: Procedure, errors: [any Error]) { record(.didFinish, of: procedure) {} }
}
