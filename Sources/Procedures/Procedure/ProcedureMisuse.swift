import Foundation
import ProceduresSupport

/// A programming error the library detected and survived.
///
/// Misuse never crashes and never hangs silently: the library ignores the offending call (or,
/// for a dependency cycle, cancels the procedures involved so they finish) and reports it
/// here. The default handler writes one line to standard error; install your own with
/// ``ProcedureMisuse/handler`` to route reports to your logger or, in tests, to assert on them.
///
/// ```swift
/// ProcedureMisuse.handler = { report in logger.warning("\(report)") }
/// ```
public struct ProcedureMisuse: Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// `finish` was called on a procedure that had already begun finishing.
        case finishedTwice
        /// `finish` was called on a procedure that finishes by itself (a ``GroupProcedure``).
        case finishedByHand
        /// `start()` was called by something other than the procedure's queue, or twice.
        case startedOutsideQueue
        /// The procedure was added to the queue it already belongs to.
        case addedTwice
        /// The procedure was added to a second queue; a procedure runs on exactly one queue.
        case addedToSecondQueue
        /// A procedure that has already finished (or begun finishing) was added to a queue.
        case addedAfterFinishing
        /// A child was added to a ``GroupProcedure`` that has begun finishing.
        case childAddedToFinishingGroup
        /// `addDependency` or `removeDependency` was called after the procedure was enqueued
        /// or started, or a procedure was made to depend on itself.
        case invalidDependency
        /// The queue found a dependency cycle; the procedures in it were cancelled.
        case dependencyCycle
        /// `produce(_:)` was called on a procedure that is not running on a queue.
        case produceWithoutQueue
        /// A delay that is not a number was given to a ``DelayProcedure``.
        case invalidDelay
        /// `addCondition(_:)` was called after the procedure was enqueued or started.
        case conditionAddedAfterEnqueue
        /// A condition called its completion more than once; the first answer was kept.
        case conditionCompletedTwice
        /// A manual clock was asked to move backwards; time never does.
        case clockMovedBackwards
        /// A timeout was added to a procedure that had already started executing (or finished):
        /// its clock starts at will-execute, so it would never fire.
        case timeoutAddedAfterStart
        /// A width below 1 was given to a ``BatchProcedure``; it runs one element at a time.
        case invalidWidth
        /// An instrument (a ``ProcedureProfiler``) was attached to a procedure already enqueued,
        /// or a group's child: it follows a procedure from its enqueue, so it was not attached.
        case instrumentAttachedAfterEnqueue
        /// SIGKILL or SIGSTOP was given to ``ProcedureQueue/cancelAllOperations(onSignals:)``;
        /// no process can catch them, so the trap left them out.
        case uncatchableSignal
        /// A procedure would have waited for itself forever: it asked for an exclusivity
        /// category that one of its enclosing groups holds (the group finishes only after it), or
        /// one of its conditions depends on a procedure that waits for it. It was cancelled with
        /// ``ProcedureError/deadlock(reason:)`` so that it, and what waits for it, finishes.
        case deadlock
    }

    /// What went wrong.
    public let kind: Kind
    /// One sentence on what happened and what to do instead.
    public let message: String
    /// The object the misuse concerns (a procedure, usually), for filtering in tests.
    public let subject: ObjectIdentifier?

    /// The report as one line.
    public var description: String { "Procedures misuse (\(kind.rawValue)): \(message)" }

    private static let storage = HandlerStorage()

    /// Receives every misuse report. Defaults to ``printToStandardError(_:)``.
    ///
    /// It is called on the thread that made the mistake, without any library lock held.
    public static var handler: @Sendable (ProcedureMisuse) -> Void {
        get { storage.handler }
        set { storage.handler = newValue }
    }

    /// Where ``handler`` lives: a field of the closure's own type, never generic storage.
    ///
    /// Kept in a `LockedValue`, the closure was stored at the generic (most general)
    /// abstraction, and every read through `withLock`'s `inout` wrote it back wrapped in two
    /// more reabstraction thunks: each report cost more than the last, and after about
    /// 100,000 reads calling it overflowed the stack.
    private final class HandlerStorage: @unchecked Sendable {
        // @unchecked: `stored` is only read or written under `lock`.
        private let lock = Lock()
        private var stored: @Sendable (ProcedureMisuse) -> Void = ProcedureMisuse.printToStandardError

        var handler: @Sendable (ProcedureMisuse) -> Void {
            get {
                lock.lock()
                defer { lock.unlock() }
                return stored
            }
            set {
                lock.lock()
                var old = newValue
                swap(&stored, &old)
                lock.unlock()
                _ = old  // the previous handler (and what it captured) is released after unlocking
            }
        }
    }

    /// The default handler: one line on standard error.
    @Sendable public static func printToStandardError(_ report: ProcedureMisuse) {
        FileHandle.standardError.write(Data((report.description + "\n").utf8))
    }

    /// Reports misuse to ``handler`` (used by the library and its testing module).
    package static func report(_ kind: Kind, _ message: String, subject: AnyObject?) {
        let report = ProcedureMisuse(
            kind: kind, message: message, subject: subject.map(ObjectIdentifier.init))
        ProcedureLog.misuse(report, subject: subject)  // checks its level first; misuse is rare
        assertNoLibraryLockHeld("ProcedureMisuse.handler")
        handler(report)
    }
}
