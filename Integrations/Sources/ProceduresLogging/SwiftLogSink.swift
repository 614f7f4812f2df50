import Logging
import Procedures

/// Sends ``Procedures/ProcedureLog`` messages to a swift-log `Logger`.
///
/// ```swift
/// ProcedureLog.sink = SwiftLogSink(logger: Logger(label: "procedures"))
/// ProcedureLog.minimumLevel = .info
/// ```
///
/// Levels map one to one (both libraries use trace … critical). Each message carries the
/// procedure's name and number as metadata (`procedure`, `procedure.id`), and its group and
/// producer when it has them (`procedure.group`, `procedure.producer`); the library's own
/// lifecycle and misuse messages have `procedure.event: library`. The logger's own level still
/// applies after the procedure's (``Procedures/ProcedureLog/minimumLevel-swift.property``, by
/// default the process-wide ``Procedures/ProcedureLog/minimumLevel-swift.type.property``).
public struct SwiftLogSink: ProcedureLogSink {
    /// The logger messages go to.
    public let logger: Logger

    /// A sink writing to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Writes `entry` to the logger at the matching level.
    public func write(_ entry: ProcedureLog.Entry) {
        var metadata: Logger.Metadata = [:]
        if let identity = entry.procedure {
            metadata["procedure"] = .string(identity.procedure.name)
            metadata["procedure.id"] = .stringConvertible(identity.procedure.id)
            if let parent = identity.parent { metadata["procedure.group"] = .string(parent.description) }
            if let producer = identity.producer { metadata["procedure.producer"] = .string(producer.description) }
        }
        if entry.isLibraryEvent { metadata["procedure.event"] = "library" }
        logger.log(
            level: Self.level(entry.level), "\(entry.message)", metadata: metadata, source: "Procedures",
            file: entry.file, function: "", line: entry.line)
    }

    /// The swift-log level for a ``Procedures/ProcedureLog/Level``.
    public static func level(_ level: ProcedureLog.Level) -> Logger.Level {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
