import ProceduresSupport
import Synchronization

/// The levels ``ProcedureLog`` filters by: the process-wide minimum level, the levels some
/// procedures have of their own, and the one gate every log call reads first.
///
/// While no procedure has a level of its own, the gate is the process-wide level, so a log
/// call that logging rejects costs what it always did: one relaxed atomic load and a compare.
/// While at least one procedure has a level of its own, the gate opens to `.trace` and every
/// call looks further (the count, then the procedure's own level under its lock): the price of
/// that debugging session, paid only during it.
enum ProcedureLogLevels {
    /// The raw value meaning "off" (no message passes).
    static let off = Int.max

    /// The process-wide minimum level's raw value, ``off`` while logging is off.
    static let global = Atomic<Int>(off)

    /// How many live procedures have a level of their own.
    static let ownLevelCount = Atomic<Int>(0)

    /// A message whose level is below this is written for no procedure: the process-wide
    /// level, or `.trace` while some procedure has a level of its own.
    static let gate = Atomic<Int>(off)

    /// Serialises the writers of the three values above and of the lifecycle hooks' flags, so
    /// that they agree. Taken after a procedure's lock, never before; it guards atomics only.
    private static let writers = Lock()

    /// True if a message of `level` about `procedure` passes: the gate first (one load), then,
    /// only if it passes, the precise answer.
    @inline(__always)
    static func admits(_ level: ProcedureLog.Level, about procedure: Procedure?) -> Bool {
        guard level.rawValue >= gate.load(ordering: .relaxed) else { return false }
        return level.rawValue >= threshold(for: procedure)
    }

    /// The raw minimum level for messages about `procedure`: its own level if it has one,
    /// else the process-wide one. (Kept out of line: it is the rare path of its callers.)
    @inline(never)
    static func threshold(for procedure: Procedure?) -> Int {
        if ownLevelCount.load(ordering: .relaxed) != 0, let procedure, let own = procedure.ownLogLevel {
            return own
        }
        return global.load(ordering: .relaxed)
    }

    static func setGlobal(_ raw: Int) {
        writers.withLock {
            global.store(raw, ordering: .relaxed)
            publish()
        }
    }

    /// Called, under the procedure's lock, when a procedure gains (+1) or loses (-1) a level of
    /// its own, so that the count always matches the procedures' fields.
    static func ownLevelsChanged(by delta: Int) {
        writers.withLock {
            ownLevelCount.store(ownLevelCount.load(ordering: .relaxed) + delta, ordering: .relaxed)
            publish()
        }
    }

    /// Recomputes the gate and the hooks' flags from the levels (under `writers`).
    private static func publish() {
        let anyOwn = ownLevelCount.load(ordering: .relaxed) != 0
        let globalRaw = global.load(ordering: .relaxed)
        gate.store(anyOwn ? ProcedureLog.Level.trace.rawValue : globalRaw, ordering: .relaxed)
        // Lifecycle events log at .warning at most: above it the hooks stay off, unless some
        // procedure has a level of its own (its events are then looked at one by one).
        ProcedureInstrumentation.setFlag(
            ProcedureInstrumentation.loggingOn, globalRaw <= ProcedureLog.loudestLifecycleLevel.rawValue)
        ProcedureInstrumentation.setFlag(ProcedureInstrumentation.ownLogLevels, anyOwn)
    }
}

extension ProcedureLog {
    /// The minimum level of this procedure's messages and of the library's messages about it
    /// (its lifecycle events, misuse reports that name it); nil means off.
    ///
    /// ```swift
    /// suspect.log.minimumLevel = .trace  // this one, in full detail
    /// chatty.log.minimumLevel = nil      // this one, not at all
    /// ```
    ///
    /// Reading it gives the level in force for this procedure: its own if it has one, else the
    /// process-wide ``ProcedureLog/minimumLevel-swift.type.property``. Setting it, to a level
    /// or to nil, gives the procedure a level of its own, which *replaces* the process-wide one
    /// for it, whether that is lower, higher or off: one misbehaving procedure can be traced
    /// while everything else stays quiet, and a chatty one silenced while logging is on.
    /// ``resetMinimumLevel()`` makes it follow the process-wide level again. Messages still go
    /// to the process-wide ``ProcedureLog/sink``.
    ///
    /// The name is the process-wide setting's, per procedure (ProcedureKit called this a log's
    /// `severity`, with an `enabled` switch; here nil is the switch, as it is process-wide).
    ///
    /// A group's level is its own: its children keep theirs (or the process-wide one). To
    /// trace a group's work, set the level on the children you want to see as well.
    ///
    /// It may be set at any time, from any thread. While some procedure has a level of its own,
    /// a log call that the process-wide level rejects takes a lock to look at its procedure's
    /// level; while none has, such a call costs one atomic load, as before.
    public var minimumLevel: Level? {
        get {
            let raw = ProcedureLogLevels.threshold(for: procedure)
            return raw == ProcedureLogLevels.off ? nil : Level(rawValue: raw)
        }
        nonmutating set {
            procedure?.setOwnLogLevel(newValue?.rawValue ?? ProcedureLogLevels.off)
        }
    }

    /// True if this procedure has a level of its own (set through
    /// ``ProcedureLog/minimumLevel-swift.property``, even to nil), false if it follows the
    /// process-wide level.
    public var hasOwnMinimumLevel: Bool { procedure?.ownLogLevel != nil }

    /// Forgets this procedure's own level: it follows the process-wide
    /// ``ProcedureLog/minimumLevel-swift.type.property`` again. Does nothing if it had none.
    public func resetMinimumLevel() {
        procedure?.setOwnLogLevel(nil)
    }

    /// True if a message of `level` logged here would be written (by this procedure's own
    /// level if it has one, else by the process-wide one). Costs what a log call's check costs.
    public func isEnabled(_ level: Level) -> Bool {
        ProcedureLogLevels.admits(level, about: procedure)
    }
}

extension Procedure {
    /// The raw value of this procedure's own log level, nil if it has none.
    var ownLogLevel: Int? {
        lock.withLock { state.instrumentation.links?.ownLogLevel }
    }

    /// Sets (a raw level, ``ProcedureLogLevels/off`` for off) or clears (nil) this procedure's
    /// own log level, keeping ``ProcedureLogLevels/ownLevelCount`` in step.
    func setOwnLogLevel(_ raw: Int?) {
        lock.withLock {
            let had = state.instrumentation.links?.ownLogLevel != nil
            guard had || raw != nil else { return }
            state.instrumentation.withLinks { $0.ownLogLevel = raw }
            let has = raw != nil
            if had != has { ProcedureLogLevels.ownLevelsChanged(by: has ? 1 : -1) }
        }
    }

    /// Called by the deinitializer of a procedure that has instrumentation links: a procedure
    /// with a level of its own stops counting when it goes.
    func forgetOwnLogLevel() {
        if state.instrumentation.links?.ownLogLevel != nil { ProcedureLogLevels.ownLevelsChanged(by: -1) }
    }
}
