import Foundation

// The pipeline file as the schema sees it: every field as written, with its type checked,
// before the checks of `PipelineChecker` (names, references, cycles, ranges). Unknown fields
// are refused, so that a misspelt field ("need") is an error rather than silently ignored.

struct RawPipeline {
    static let fields = ["steps", "jobs", "env"]
    var steps: [RawStep]
    var jobs: Double?
    var env: [String: String]?
}

struct RawStep {
    static let fields = [
        "name", "run", "argv", "needs", "retry", "timeout", "exclusive", "when", "continueOnError", "env", "cwd", "sources", "generates",
    ]
    var name: String
    var run: String?
    var argv: [String]?
    var needs: [String]?
    var retry: RawRetry?
    var timeout: Double?
    var exclusive: [String]?
    var when: RawCondition?
    var continueOnError: Bool?
    var env: [String: String]?
    var cwd: String?
    var sources: [String]?
    var generates: [String]?
}

struct RawRetry {
    static let fields = ["attempts", "backoff", "maxBackoff"]
    var attempts: Double
    var backoff: Double?
    var maxBackoff: Double?
}

struct RawCondition {
    static let fields = ["exists", "env", "output", "matches"]
    var exists: String?
    var env: String?
    var output: String?
    var matches: String?
}

/// Reads a ``RawPipeline`` from a JSON tree and notes every problem on the way (each wrong
/// type, unknown field and missing field in the file, not just the first).
struct PipelineSchemaReader {
    private(set) var problems: [PipelineProblem] = []

    /// The pipeline, or nil if anything in it has the wrong shape (see `problems`).
    mutating func read(_ root: JSONValue) -> RawPipeline? {
        guard let fields = object(root, at: .root, step: nil, known: RawPipeline.fields) else { return nil }
        let steps = field(fields, "steps", required: true) { reader, value, path in
            reader.list(value, at: path, step: nil) { reader, element, path in reader.step(element, at: path) }
        }
        let jobs = field(fields, "jobs") { $0.number($1, at: $2, step: nil) }
        let env = field(fields, "env") { $0.stringMap($1, at: $2, step: nil) }
        guard problems.isEmpty, let steps else { return nil }
        return RawPipeline(steps: steps.map { $0! }, jobs: jobs, env: env)
    }

    private mutating func step(_ value: JSONValue, at path: SchemaPath) -> RawStep? {
        // Messages name the step once its name can be read.
        let name: String? = if case .string(let name)? = value["name"]?.kind { name } else { nil }
        guard let fields = object(value, at: path, step: name, known: RawStep.fields) else { return nil }
        let before = problems.count
        let step = RawStep(
            name: field(fields, "name", required: true) { $0.string($1, at: $2, step: name) } ?? "",
            run: field(fields, "run") { $0.string($1, at: $2, step: name) },
            argv: field(fields, "argv") { $0.strings($1, at: $2, step: name) },
            needs: field(fields, "needs") { $0.strings($1, at: $2, step: name) },
            retry: field(fields, "retry") { $0.retry($1, at: $2, step: name) },
            timeout: field(fields, "timeout") { $0.number($1, at: $2, step: name) },
            exclusive: field(fields, "exclusive") { $0.strings($1, at: $2, step: name) },
            when: field(fields, "when") { $0.condition($1, at: $2, step: name) },
            continueOnError: field(fields, "continueOnError") { $0.bool($1, at: $2, step: name) },
            env: field(fields, "env") { $0.stringMap($1, at: $2, step: name) },
            cwd: field(fields, "cwd") { $0.string($1, at: $2, step: name) },
            sources: field(fields, "sources") { $0.strings($1, at: $2, step: name) },
            generates: field(fields, "generates") { $0.strings($1, at: $2, step: name) })
        return problems.count == before ? step : nil
    }

    private mutating func retry(_ value: JSONValue, at path: SchemaPath, step: String?) -> RawRetry? {
        guard let fields = object(value, at: path, step: step, known: RawRetry.fields) else { return nil }
        let attempts = field(fields, "attempts", required: true) { $0.number($1, at: $2, step: step) }
        let backoff = field(fields, "backoff") { $0.number($1, at: $2, step: step) }
        let maxBackoff = field(fields, "maxBackoff") { $0.number($1, at: $2, step: step) }
        return attempts.map { RawRetry(attempts: $0, backoff: backoff, maxBackoff: maxBackoff) }
    }

    private mutating func condition(_ value: JSONValue, at path: SchemaPath, step: String?) -> RawCondition? {
        guard let fields = object(value, at: path, step: step, known: RawCondition.fields) else { return nil }
        return RawCondition(
            exists: field(fields, "exists") { $0.string($1, at: $2, step: step) },
            env: field(fields, "env") { $0.string($1, at: $2, step: step) },
            output: field(fields, "output") { $0.string($1, at: $2, step: step) },
            matches: field(fields, "matches") { $0.string($1, at: $2, step: step) })
    }

    // MARK: - Shapes

    /// An object's fields, where it is, and the step it belongs to (for messages).
    private struct Fields {
        var object: JSONValue
        var members: [JSONValue.Member]
        var path: SchemaPath
        var step: String?

        /// The value of field `name`: a look at each member, as many as the few a reader asks
        /// for (cheaper than hashing every name, and linear however large the object).
        subscript(name: String) -> JSONValue? {
            members.first { $0.key == name }?.value
        }
    }

    /// The fields of an object; an unknown field is a problem (each one is reported).
    private mutating func object(_ value: JSONValue, at path: SchemaPath, step: String?, known: [String]) -> Fields? {
        guard case .object(let members) = value.kind else {
            mismatch(value, expected: "an object", at: path, step: step)
            return nil
        }
        let fields = Fields(object: value, members: members, path: path, step: step)
        for member in members {
            guard !known.contains(member.key) else { continue }
            let suggestion = PipelineFile.closest(to: member.key, among: known).map { " (did you mean '\($0)'?)" } ?? ""
            note(member.value.offset, "\(Self.subject(path.components, step: step)): unknown field '\(member.key)'\(suggestion); known fields: \(known.joined(separator: ", "))")
        }
        return fields
    }

    /// A field read by `read`; absent (or null, when optional) is nil, and a missing required field is a problem.
    private mutating func field<T>(
        _ fields: Fields, _ name: String, required: Bool = false, _ read: (inout Self, JSONValue, SchemaPath) -> T?
    ) -> T? {
        guard let value = fields[name], required || !value.isNull else {
            if required { note(fields.object.offset, "\(Self.subject(fields.path.components, step: fields.step)): missing field '\(name)'") }
            return nil
        }
        return read(&self, value, fields.path.appending(name))
    }

    /// A list whose elements are read by `element`; nil if any of them is wrong (all are checked).
    private mutating func list<T>(
        _ value: JSONValue, at path: SchemaPath, step: String?, _ element: (inout Self, JSONValue, SchemaPath) -> T?
    ) -> [T?]? {
        guard case .array(let elements) = value.kind else {
            mismatch(value, expected: "a list", at: path, step: step)
            return nil
        }
        let before = problems.count
        let read = elements.enumerated().map { element(&self, $1, path.appending(index: $0)) }
        return problems.count == before ? read : nil
    }

    private mutating func strings(_ value: JSONValue, at path: SchemaPath, step: String?) -> [String]? {
        list(value, at: path, step: step) { $0.string($1, at: $2, step: step) }.map { $0.map { $0! } }
    }

    private mutating func stringMap(_ value: JSONValue, at path: SchemaPath, step: String?) -> [String: String]? {
        guard case .object(let members) = value.kind else {
            mismatch(value, expected: "an object", at: path, step: step)
            return nil
        }
        var map: [String: String] = [:]
        for member in members {
            if let text = string(member.value, at: path.appending(member.key), step: step) { map[member.key] = text }
        }
        return map.count == members.count ? map : nil
    }

    private mutating func string(_ value: JSONValue, at path: SchemaPath, step: String?) -> String? {
        if case .string(let text) = value.kind { return text }
        mismatch(value, expected: "a string", at: path, step: step)
        return nil
    }

    private mutating func number(_ value: JSONValue, at path: SchemaPath, step: String?) -> Double? {
        if case .number(let number) = value.kind { return number }
        mismatch(value, expected: "a number", at: path, step: step)
        return nil
    }

    private mutating func bool(_ value: JSONValue, at path: SchemaPath, step: String?) -> Bool? {
        if case .bool(let flag) = value.kind { return flag }
        mismatch(value, expected: "true or false", at: path, step: step)
        return nil
    }

    // MARK: - Problems

    private mutating func mismatch(_ value: JSONValue, expected: String, at path: SchemaPath, step: String?) {
        note(value.offset, "\(Self.subject(path.components, step: step)): expected \(expected), found \(value.kindName)")
    }

    private mutating func note(_ offset: Int, _ message: String) {
        problems.append(PipelineProblem(offset: offset, message: message))
    }

    /// What a message is about: `steps[3].retry.attempts` of a step named build is
    /// "step 'build': field 'retry.attempts'"; the document itself is "the pipeline".
    static func subject(_ path: [String], step: String?) -> String {
        var components = path
        var text = ""
        if components.first == "steps", components.count >= 2, components[1].hasPrefix("[") {
            text = step.map { "step '\($0)'" } ?? "steps\(components[1])"
            components.removeFirst(2)
        }
        let fieldPath = JSONValue.join(components)
        if !fieldPath.isEmpty { text += (text.isEmpty ? "" : ": ") + "field '\(fieldPath)'" }
        return text.isEmpty ? "the pipeline" : text
    }
}

extension JSONValue {
    var isNull: Bool {
        if case .null = kind { return true }
        return false
    }
}
