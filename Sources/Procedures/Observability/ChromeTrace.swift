import Foundation

/// A procedure timeline in Chrome's trace-event JSON format, which Perfetto
/// (ui.perfetto.dev, "Open trace file") and `chrome://tracing` open.
///
/// What the file shows:
/// - **Threads**: one track per thread, with a slice per procedure for the time its
///   `execute()` call ran on that thread (what a CPU profiler would show). Its arguments give
///   the procedure's number, group, producer, waiting and running times, and errors.
/// - **Lifetimes**: one async track per procedure (category `lifecycle`), spanning enqueued to
///   finished, with a nested `waiting` slice (enqueued to started) and `running` slice
///   (started to finished). The track's name carries the group path, `Group ▸ Child`.
/// - **Dependencies**: a flow arrow (category `dependency`) from each dependency's `execute()`
///   slice to its dependent's.
/// - **Drops**: `otherData.droppedProcedures` and a global instant event count the procedures
///   the profiler dropped to stay within its capacity.
///
/// Timestamps are microseconds from the first recorded event.
public struct ChromeTrace: Sendable {
    /// The profiles the trace shows.
    public let profiles: [ProcedureProfile]
    /// How many procedures were dropped before the trace was made.
    public let droppedCount: Int

    /// A trace of `profiles` (from ``ProcedureProfiler/profiles``).
    public init(profiles: [ProcedureProfile], droppedCount: Int = 0) {
        self.profiles = profiles
        self.droppedCount = droppedCount
    }

    /// Writes the JSON to `url`, replacing any file there.
    ///
    /// - Throws: ``TraceFileError`` naming the file and the reason if it cannot be written.
    public func write(to url: URL) throws {
        do {
            try jsonData().write(to: url, options: .atomic)
        } catch {
            throw TraceFileError(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }

    /// The trace as JSON (`{"traceEvents": [...], ...}`).
    public func jsonData() -> Data { Data(json().utf8) }

    /// The trace as a JSON string.
    public func json() -> String {
        let origin = profiles.compactMap { $0.createdAt ?? $0.enqueuedAt }.min() ?? 0
        func micros(_ time: UInt64) -> String {
            let delta = time >= origin ? time - origin : 0
            return String(format: "%.3f", Double(delta) / 1000)
        }
        let names = Dictionary(profiles.map { ($0.identity.procedure.id, $0) }, uniquingKeysWith: { first, _ in first })
        func path(of profile: ProcedureProfile) -> String {
            var parts = [profile.name]
            var parent = profile.identity.parent
            var depth = 0
            while let reference = parent, depth < 64 {
                parts.append(reference.name)
                parent = names[reference.id]?.identity.parent
                depth += 1
            }
            return parts.reversed().joined(separator: " ▸ ")
        }

        var events: [String] = []
        events.reserveCapacity(profiles.count * 6 + 8)
        events.append(#"{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Procedures"}}"#)
        var threads = Set<UInt64>()
        for profile in profiles {
            if let execution = profile.execution { threads.insert(execution.thread) }
        }
        for thread in threads.sorted() {
            events.append(#"{"ph":"M","name":"thread_name","pid":1,"tid":\#(thread),"args":{"name":"thread \#(thread)"}}"#)
        }
        if droppedCount > 0 {
            events.append(
                #"{"ph":"i","s":"g","name":"\#(droppedCount) procedures dropped (profiler capacity)","pid":1,"tid":0,"ts":0}"#)
        }
        for profile in profiles {
            let id = profile.identity.procedure.id
            let name = Self.escape(profile.name)
            let args = Self.arguments(of: profile)
            if let execution = profile.execution, let ended = execution.ended {
                events.append(
                    #"{"ph":"X","cat":"procedure","name":"\#(name)","pid":1,"tid":\#(execution.thread),"ts":\#(micros(execution.began)),"dur":\#(String(format: "%.3f", Double(ended - execution.began) / 1000)),"args":\#(args)}"#
                )
            }
            guard let enqueued = profile.enqueuedAt else { continue }
            let track = Self.escape(path(of: profile))
            let end = profile.finishedAt ?? profile.startedAt ?? enqueued
            let asyncID = #""id":"0x\#(String(id, radix: 16))""#
            events.append(#"{"ph":"b","cat":"lifecycle","name":"\#(track)",\#(asyncID),"pid":1,"tid":0,"ts":\#(micros(enqueued)),"args":\#(args)}"#)
            if let started = profile.startedAt {
                events.append(#"{"ph":"b","cat":"lifecycle","name":"waiting",\#(asyncID),"pid":1,"tid":0,"ts":\#(micros(enqueued))}"#)
                events.append(#"{"ph":"e","cat":"lifecycle","name":"waiting",\#(asyncID),"pid":1,"tid":0,"ts":\#(micros(started))}"#)
                if let finished = profile.finishedAt {
                    events.append(#"{"ph":"b","cat":"lifecycle","name":"running",\#(asyncID),"pid":1,"tid":0,"ts":\#(micros(started))}"#)
                    events.append(#"{"ph":"e","cat":"lifecycle","name":"running",\#(asyncID),"pid":1,"tid":0,"ts":\#(micros(finished))}"#)
                }
            }
            events.append(#"{"ph":"e","cat":"lifecycle","name":"\#(track)",\#(asyncID),"pid":1,"tid":0,"ts":\#(micros(end))}"#)
        }
        // Dependency arrows, between execute() slices (a flow binds to the slice around it).
        var flow = 0
        for profile in profiles {
            guard let to = profile.execution else { continue }
            for dependency in profile.dependencies {
                guard let from = names[dependency.id]?.execution else { continue }
                flow += 1
                events.append(
                    #"{"ph":"s","cat":"dependency","name":"dependency","id":\#(flow),"pid":1,"tid":\#(from.thread),"ts":\#(micros(from.began))}"#)
                events.append(
                    #"{"ph":"f","bp":"e","cat":"dependency","name":"dependency","id":\#(flow),"pid":1,"tid":\#(to.thread),"ts":\#(micros(to.began))}"#)
            }
        }
        return #"{"displayTimeUnit":"ms","otherData":{"droppedProcedures":\#(droppedCount)},"traceEvents":[\#n"#
            + events.joined(separator: ",\n") + "\n]}\n"
    }

    private static func arguments(of profile: ProcedureProfile) -> String {
        var fields = [#""id":\#(profile.identity.procedure.id)"#]
        if let parent = profile.identity.parent { fields.append(#""group":"\#(escape(parent.description))""#) }
        if let producer = profile.identity.producer { fields.append(#""producedBy":"\#(escape(producer.description))""#) }
        if let waiting = profile.waitingTime { fields.append(#""waitingMs":\#(milliseconds(waiting))"#) }
        if let running = profile.runningTime { fields.append(#""runningMs":\#(milliseconds(running))"#) }
        if profile.cancelled { fields.append(#""cancelled":true"#) }
        if !profile.errors.isEmpty {
            fields.append(#""errors":[\#(profile.errors.map { "\"\(escape(String(describing: $0)))\"" }.joined(separator: ","))]"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// `text` as the inside of a JSON string.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A trace or graph file that could not be written.
public struct TraceFileError: Error, CustomStringConvertible, LocalizedError {
    /// The file that could not be written.
    public let path: String
    /// Why, as the system said it.
    public let reason: String
    /// One sentence naming the file and the reason.
    public var description: String { "cannot write the trace file \(path): \(reason)" }
    /// Same as ``description``.
    public var errorDescription: String? { description }
}
