import Foundation

// The pipeline file as JSONDecoder sees it: every field as written, before the checks of
// `PipelineFile` (names, references, cycles, ranges). Unknown fields are rejected here, so
// that a misspelt field ("need") is an error rather than silently ignored.

/// Any field name, so that a container can list the fields it was given.
struct FieldKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A field the schema does not know.
struct UnknownFieldError: Error {
    var path: [any CodingKey]
    var field: String
    var known: [String]
}

/// An error inside a step, with the step's name when it could be read.
struct StepDecodingError: Error {
    var stepName: String?
    var underlying: any Error
}

extension KeyedDecodingContainer where Key == FieldKey {
    func rejectUnknownFields(_ known: [String]) throws {
        for key in allKeys where !known.contains(key.stringValue) {
            throw UnknownFieldError(path: codingPath + [key], field: key.stringValue, known: known)
        }
    }

    func optional<T: Decodable>(_ type: T.Type, _ field: String) throws -> T? {
        try decodeIfPresent(type, forKey: FieldKey(field))
    }
}

struct RawPipeline: Decodable {
    static let fields = ["steps", "jobs", "env"]
    var steps: [RawStep]
    /// A number, not an `Int`: on Linux the decoder's error for 1.5 has no coding path.
    var jobs: Double?
    var env: [String: String]?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        try container.rejectUnknownFields(Self.fields)
        steps = try container.decode([RawStep].self, forKey: FieldKey("steps"))
        jobs = try container.optional(Double.self, "jobs")
        env = try container.optional([String: String].self, "env")
    }
}

struct RawStep: Decodable {
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

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        let name = try? container.decode(String.self, forKey: FieldKey("name"))
        do {
            try container.rejectUnknownFields(Self.fields)
            self.name = try container.decode(String.self, forKey: FieldKey("name"))
            run = try container.optional(String.self, "run")
            argv = try container.optional([String].self, "argv")
            needs = try container.optional([String].self, "needs")
            retry = try container.optional(RawRetry.self, "retry")
            timeout = try container.optional(Double.self, "timeout")
            exclusive = try container.optional([String].self, "exclusive")
            when = try container.optional(RawCondition.self, "when")
            continueOnError = try container.optional(Bool.self, "continueOnError")
            env = try container.optional([String: String].self, "env")
            cwd = try container.optional(String.self, "cwd")
            sources = try container.optional([String].self, "sources")
            generates = try container.optional([String].self, "generates")
        } catch {
            throw StepDecodingError(stepName: name, underlying: error)
        }
    }
}

struct RawRetry: Decodable {
    static let fields = ["attempts", "backoff", "maxBackoff"]
    /// A number, not an `Int`: on Linux the decoder's error for 1.5 has no coding path.
    var attempts: Double
    var backoff: Double?
    var maxBackoff: Double?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        try container.rejectUnknownFields(Self.fields)
        attempts = try container.decode(Double.self, forKey: FieldKey("attempts"))
        backoff = try container.optional(Double.self, "backoff")
        maxBackoff = try container.optional(Double.self, "maxBackoff")
    }
}

struct RawCondition: Decodable {
    static let fields = ["exists", "env", "output", "matches"]
    var exists: String?
    var env: String?
    var output: String?
    var matches: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        try container.rejectUnknownFields(Self.fields)
        exists = try container.optional(String.self, "exists")
        env = try container.optional(String.self, "env")
        output = try container.optional(String.self, "output")
        matches = try container.optional(String.self, "matches")
    }
}
