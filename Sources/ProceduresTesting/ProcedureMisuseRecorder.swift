import Foundation
import Procedures

/// Records every ``ProcedureMisuse`` report made while it is installed, so a test can assert
/// on them.
///
/// Creating a recorder installs it as ``ProcedureMisuse/handler``; ``stop()`` (or releasing
/// the recorder) puts back the handler that was installed before. While it records, reports
/// are kept rather than passed on (so the default handler prints nothing).
///
/// ```swift
/// let misuse = ProcedureMisuseRecorder()
/// defer { misuse.stop() }
/// let procedure = BlockProcedure {}
/// wait(for: procedure)
/// procedure.finish()
/// XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
/// ```
///
/// A whole test case can create one in `setUp()` and stop it in `tearDown()`.
///
/// ``ProcedureMisuse/handler`` is global: record in one test at a time (XCTest runs a
/// process's tests one after another; Swift Testing runs them in parallel, so record there in
/// one `.serialized` suite only, and ask about your own procedures: the recorder hears the
/// other tests' reports too), and stop nested recorders in the reverse order of their
/// creation, so each puts back the handler it replaced.
///
/// The recorder is thread-safe: reports may arrive on any thread while the test reads them.
public final class ProcedureMisuseRecorder: @unchecked Sendable {
    // @unchecked: `reports` and `previous` are only touched under `lock`.
    private let lock = NSLock()
    private var reports: [ProcedureMisuse] = []
    /// The handler to put back; nil once stopped.
    private var previous: (@Sendable (ProcedureMisuse) -> Void)?

    /// Installs a new recorder as ``ProcedureMisuse/handler``, remembering the current handler
    /// so that ``stop()`` can put it back.
    public init() {
        previous = ProcedureMisuse.handler
        // Weak: the handler must not keep the recorder alive, so that releasing the recorder
        // restores the previous handler.
        ProcedureMisuse.handler = { [weak self] report in self?.record(report) }
    }

    deinit { stop() }

    private func record(_ report: ProcedureMisuse) {
        lock.withLock {
            // A report racing `stop()` is dropped once stopped.
            if previous != nil { reports.append(report) }
        }
    }

    /// Stops recording and puts back the handler that was installed when the recorder was
    /// created. Calling it again does nothing. The reports recorded so far stay readable.
    public func stop() {
        let restore = lock.withLock { () -> (@Sendable (ProcedureMisuse) -> Void)? in
            defer { previous = nil }
            return previous
        }
        if let restore { ProcedureMisuse.handler = restore }
    }

    /// Every report recorded so far, in the order they were made.
    public var all: [ProcedureMisuse] { lock.withLock { reports } }

    /// The reports about `subject` (usually a procedure), in order.
    public func reports(about subject: AnyObject) -> [ProcedureMisuse] {
        let id = ObjectIdentifier(subject)
        return lock.withLock { reports.filter { $0.subject == id } }
    }

    /// The reports about any of `subjects`, in the order they were made.
    public func reports(aboutAny subjects: [AnyObject]) -> [ProcedureMisuse] {
        let ids = Set(subjects.map(ObjectIdentifier.init))
        return lock.withLock { reports.filter { $0.subject.map(ids.contains) ?? false } }
    }

    /// The kinds of the reports about `subject`, in order: handy for `XCTAssertEqual`.
    public func kinds(about subject: AnyObject) -> [ProcedureMisuse.Kind] {
        reports(about: subject).map(\.kind)
    }
}
