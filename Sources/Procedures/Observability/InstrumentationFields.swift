/// Instrumentation data a procedure keeps, under its lock (all zero/nil while nothing listens).
/// Kept small (24 bytes) since every procedure carries it: the rarely set links live in a box.
struct InstrumentationFields {
    var id: UInt64 = 0
    var createdAt: UInt64 = 0
    var links: InstrumentationLinks?

    /// The links box, made on first write.
    mutating func withLinks<T>(_ body: (InstrumentationLinks) -> T) -> T {
        if let links { return body(links) }
        let made = InstrumentationLinks()
        links = made
        return body(made)
    }
}

/// A procedure's group and producer, as recorded when instrumentation was on (only touched
/// under the owning procedure's lock).
final class InstrumentationLinks {
    var parent: ProcedureIdentity.Reference?
    weak var parentGroup: GroupProcedure?
    var producer: ProcedureIdentity.Reference?
    /// The procedure's type name, for procedures without a name.
    var typeName: String?
    /// The raw value of the procedure's own log level (``ProcedureLogLevels/off`` for off),
    /// nil if it follows the process-wide one.
    var ownLogLevel: Int?
}
