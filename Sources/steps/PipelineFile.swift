import Foundation

/// A pipeline file that cannot be run: one line per problem, each naming the file, the place
/// (line:column when known), the step and the field.
struct PipelineError: Error, CustomStringConvertible {
    var lines: [String]
    var description: String { lines.joined(separator: "\n") }
}

/// Reads and checks a pipeline file: JSON syntax (with line and column), the schema (decoded by
/// Foundation's `JSONDecoder`), then names, references, ranges and cycles.
enum PipelineFile {
    static func load(path: String) throws(PipelineError) -> Pipeline {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
            throw PipelineError(lines: ["\(path): \(reason)"])
        }
        return try parse(data, named: path, directory: url.deletingLastPathComponent())
    }

    static func parse(_ data: Data, named file: String, directory: URL) throws(PipelineError) -> Pipeline {
        let locator: JSONLocator
        do {
            locator = try JSONLocator(scanning: data)
        } catch {
            throw PipelineError(lines: ["\(file):\(error.position): JSON syntax error: \(error.message)"])
        }
        let raw: RawPipeline
        do {
            raw = try JSONDecoder().decode(RawPipeline.self, from: data)
        } catch {
            throw PipelineError(lines: [describe(error, file: file, locator: locator)])
        }
        var checker = PipelineChecker(file: file, locator: locator)
        let pipeline = checker.check(raw, directory: directory)
        guard checker.problems.isEmpty, let pipeline else { throw PipelineError(lines: checker.problems) }
        return pipeline
    }

    // MARK: - Decoding errors

    private static func describe(_ error: any Error, file: String, locator: JSONLocator, stepName: String? = nil) -> String {
        func place(_ path: [any CodingKey]) -> String {
            let components = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return locator.position(of: components).map { "\(file):\($0)" } ?? file
        }
        func subject(_ path: [any CodingKey], field: String? = nil) -> String {
            // steps[3].retry.attempts → "step 'build': field 'retry.attempts'"
            var components = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            if let field { components.append(field) }
            var text = ""
            if components.first == "steps", components.count >= 2, components[1].hasPrefix("[") {
                text = stepName.map { "step '\($0)'" } ?? "steps\(components[1])"
                components.removeFirst(2)
            }
            let fieldPath = JSONLocator.join(components)
            if !fieldPath.isEmpty { text += (text.isEmpty ? "" : ": ") + "field '\(fieldPath)'" }
            return text.isEmpty ? "the pipeline" : text
        }
        switch error {
        case let error as StepDecodingError:
            return describe(error.underlying, file: file, locator: locator, stepName: error.stepName)
        case let error as UnknownFieldError:
            let parent = Array(error.path.dropLast())
            let suggestion = closest(to: error.field, among: error.known).map { " (did you mean '\($0)'?)" } ?? ""
            return "\(place(error.path)): \(subject(parent)): unknown field '\(error.field)'\(suggestion); known fields: \(error.known.joined(separator: ", "))"
        case DecodingError.keyNotFound(let key, let context):
            return "\(place(context.codingPath)): \(subject(context.codingPath)): missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(let type, let context):
            return "\(place(context.codingPath)): \(subject(context.codingPath)): expected \(kind(of: type)), found \(found(at: context.codingPath, locator: locator))"
        case DecodingError.valueNotFound(let type, let context):
            return "\(place(context.codingPath)): \(subject(context.codingPath)): expected \(kind(of: type)), found null"
        case DecodingError.dataCorrupted(let context):
            if context.codingPath.isEmpty { return "\(file): not a valid JSON document" }
            return "\(place(context.codingPath)): \(subject(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(file): \(error)"
        }
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is Int.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is [String].Type, is [RawStep].Type, is [Any].Type: return "a list"
        default: return "an object"
        }
    }

    /// What the value at `path` is, read from the raw text the locator saw.
    private static func found(at path: [any CodingKey], locator: JSONLocator) -> String {
        // The decoder says what it expected, not what it found: name the kind the text starts with.
        guard let first = locator.firstCharacter(at: path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }) else {
            return "something else"
        }
        switch first {
        case "\"": return "a string"
        case "{": return "an object"
        case "[": return "a list"
        case "t", "f": return "true or false"
        case "n": return "null"
        default: return "a number"
        }
    }

    /// The known name nearest to a misspelt one (edit distance at most 2).
    static func closest(to word: String, among names: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var row = [i + 1]
                for (j, y) in b.enumerated() {
                    row.append(min(previous[j + 1] + 1, row[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = row
            }
            return previous[b.count]
        }
        let best = names.map { ($0, distance(Array(word.lowercased()), Array($0.lowercased()))) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= 2 else { return nil }
        return best.0
    }
}
