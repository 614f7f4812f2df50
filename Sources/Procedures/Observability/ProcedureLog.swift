import Foundation
import ProceduresSupport
import Synchronization

/// A procedure's log: messages tagged with the procedure's name, number and group, sent to
/// one process-wide ``sink`` when their level reaches the minimum level: the procedure's own,
/// if it has one, else the process-wide ``minimumLevel-swift.type.property``.
///
/// ```swift
/// ProcedureLog.minimumLevel = .debug
/// final class Fetch: Procedure, @unchecked Sendable {
///     override func execute() {
///         log.info("fetching \(url)")  // built only when .info is enabled
///         finish()
///     }
/// }
/// ```
///
/// Logging is off by default (``minimumLevel-swift.type.property`` is nil). While it is off a
/// log call costs one atomic load and its message is never built. One procedure can be given
/// a level of its own, which replaces the process-wide one for it
/// (``minimumLevel-swift.property``): `suspect.log.minimumLevel = .trace`.
///
/// The library logs its own lifecycle events through the same channel: enqueued and ready at
/// `.trace`, started, finished and produced at `.debug`, cancelled at `.info` (`.notice` with
/// errors), finished with errors at `.warning`, and every ``ProcedureMisuse`` report at
/// `.error`, each by the level of the procedure it is about.
///
/// The sink is called on the thread of the event, with no library lock held: a sink that
/// blocks delays only the procedure whose callback logged, and can never deadlock the library.
/// Wrap a slow sink in a ``BufferedLogSink`` to take it off the procedures' threads.
public struct ProcedureLog: Sendable {
    /// How important a message is, from `trace` (most verbose) to `critical` (swift-log's levels).
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        /// Step-by-step detail: the library's enqueued and ready events.
        case trace
        /// Detail for debugging: started, finished, produced.
        case debug
        /// Something worth knowing: a cancel.
        case info
        /// A normal but significant condition: a cancel with errors.
        case notice
        /// Something went wrong but was handled: a procedure finished with errors.
        case warning
        /// An error: library misuse.
        case error
        /// The process cannot go on as intended.
        case critical

        /// Lower is more verbose.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name (`"warning"`).
        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }
    }

    /// One message, as a sink receives it.
    public struct Entry: Sendable, CustomStringConvertible {
        /// Its level.
        public let level: Level
        /// The message.
        public let message: String
        /// The procedure it is about (with its group and producer), if any.
        public let procedure: ProcedureIdentity?
        /// True for the library's own lifecycle and misuse messages.
        public let isLibraryEvent: Bool
        /// When it was logged.
        public let date: Date
        /// The thread it was logged on (a small number per thread).
        public let thread: UInt64
        /// Where it was logged (`#fileID`).
        public let file: String
        /// Where it was logged (`#line`).
        public let line: UInt

        /// `[level] name#id in group#id: message`.
        public var description: String {
            let about = procedure.map { "\($0): " } ?? ""
            return "[\(level)] \(about)\(message)"
        }
    }

    /// The procedure this log belongs to (nil for the library's process-wide messages).
    let procedure: Procedure?

    // MARK: - Configuration

    private static let storedSink = LockedValue<any ProcedureLogSink>(StandardErrorLogSink())

    /// Messages below this level are dropped before they are built; nil (the default) turns
    /// logging off, the library's lifecycle messages included. It applies to every procedure
    /// that has no level of its own (see ``ProcedureLog/minimumLevel-swift.property``) and to
    /// the library's messages about no procedure in particular.
    public static var minimumLevel: Level? {
        get {
            let raw = ProcedureLogLevels.global.load(ordering: .relaxed)
            return raw == ProcedureLogLevels.off ? nil : Level(rawValue: raw)
        }
        set {
            ProcedureLogLevels.setGlobal(newValue?.rawValue ?? ProcedureLogLevels.off)
        }
    }

    /// Where messages go. Defaults to a ``StandardErrorLogSink``.
    public static var sink: any ProcedureLogSink {
        get { storedSink.withLock { $0 } }
        set { storedSink.withLock { $0 = newValue } }
    }

    /// True if a message of `level` would be written by the process-wide
    /// ``ProcedureLog/minimumLevel-swift.type.property`` (a procedure with a level of its own
    /// answers for itself: ``ProcedureLog/isEnabled(_:)-swift.method``).
    @inline(__always)
    public static func isEnabled(_ level: Level) -> Bool {
        level.rawValue >= ProcedureLogLevels.global.load(ordering: .relaxed)
    }

    // MARK: - Logging

    /// Logs `message` at `level`; the message is built only if the level is enabled for this
    /// procedure (see ``ProcedureLog/minimumLevel-swift.property``).
    public func log(
        level: Level, _ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line
    ) {
        // The gate alone decides while logging rejects the level and no procedure has one of
        // its own: one load and a compare, then out.
        guard level.rawValue >= ProcedureLogLevels.gate.load(ordering: .relaxed) else { return }
        logPastTheGate(level, message, file: file, line: line)
    }

    /// The rest of a log call (out of line, so a rejected call spills nothing): the precise
    /// level check, then the message.
    @inline(never)
    private func logPastTheGate(_ level: Level, _ message: () -> String, file: String, line: UInt) {
        guard level.rawValue >= ProcedureLogLevels.threshold(for: procedure) else { return }
        Self.write(level, message(), about: procedure?.instrumentationIdentity, library: false, file: file, line: line)
    }

    /// Logs at ``Level/trace``. See ``log(level:_:file:line:)``.
    public func trace(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .trace, message(), file: file, line: line)
    }

    /// Logs at ``Level/debug``. See ``log(level:_:file:line:)``.
    public func debug(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .debug, message(), file: file, line: line)
    }

    /// Logs at ``Level/info``. See ``log(level:_:file:line:)``.
    public func info(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .info, message(), file: file, line: line)
    }

    /// Logs at ``Level/notice``. See ``log(level:_:file:line:)``.
    public func notice(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .notice, message(), file: file, line: line)
    }

    /// Logs at ``Level/warning``. See ``log(level:_:file:line:)``.
    public func warning(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .warning, message(), file: file, line: line)
    }

    /// Logs at ``Level/error``. See ``log(level:_:file:line:)``.
    public func error(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .error, message(), file: file, line: line)
    }

    /// Logs at ``Level/critical``. See ``log(level:_:file:line:)``.
    public func critical(_ message: @autoclosure () -> String, file: String = #fileID, line: UInt = #line) {
        log(level: .critical, message(), file: file, line: line)
    }

    // MARK: - The library's own messages

    private static func write(
        _ level: Level, _ message: String, about identity: ProcedureIdentity?, library: Bool, file: String, line: UInt
    ) {
        let entry = Entry(
            level: level, message: message, procedure: identity, isLibraryEvent: library, date: Date(),
            thread: ThreadNumber.current, file: file, line: line)
        assertNoLibraryLockHeld("the log sink's write(_:)")
        sink.write(entry)
    }

    static let loudestLifecycleLevel = Level.warning

    /// The level a lifecycle event is logged at; nil for events that are not logged. (Inlined:
    /// every lifecycle hook asks while logging is on.)
    @inline(__always)
    static func level(of kind: ProcedureLifecycleEvent.Kind) -> Level? {
        switch kind {
        case .enqueued, .ready: .trace
        case .started, .willProduce: .debug
        case .executing, .executed: nil
        case .cancelled(let errors): errors.isEmpty ? .info : .notice
        case .finished(let errors, _): errors.isEmpty ? .debug : .warning
        }
    }

    /// Logs a lifecycle event at `level`, its level, once the caller has found it enabled for
    /// the event's procedure.
    static func lifecycle(_ event: ProcedureLifecycleEvent, at level: Level) {
        let message: String
        switch event.kind {
        case .enqueued:
            message = event.dependencies.isEmpty
                ? "enqueued" : "enqueued, waits for \(event.dependencies.map(\.description).joined(separator: ", "))"
        case .ready: message = "ready"
        case .started: message = "started"
        case .executing, .executed: return
        case .willProduce(let operation):
            message = "produces \((operation as? Procedure)?.displayName ?? operation.name ?? "an operation")"
        case .cancelled(let errors):
            message = errors.isEmpty ? "cancelled" : "cancelled with errors: \(errors)"
        case .finished(let errors, let cancelled):
            let how = cancelled ? "finished (cancelled)" : "finished"
            message = errors.isEmpty ? how : "\(how) with errors: \(errors)"
        }
        write(level, message, about: event.identity, library: true, file: #fileID, line: #line)
    }

    /// Logs a misuse report at `.error` (by the level of the procedure it names, if any).
    static func misuse(_ report: ProcedureMisuse, subject: AnyObject?) {
        let procedure = subject as? Procedure
        guard ProcedureLogLevels.admits(.error, about: procedure) else { return }
        let identity = procedure?.instrumentationIdentity
        write(.error, report.description, about: identity, library: true, file: #fileID, line: #line)
    }
}

extension Procedure {
    /// This procedure's log: messages tagged with its name, number and group. See ``ProcedureLog``.
    public final var log: ProcedureLog { ProcedureLog(procedure: self) }
}
