import Foundation

/// Reads and checks a pipeline file: the text (JSON syntax, UTF-8, depth, number range), the
/// schema (every field's type, unknown fields), then names, references, ranges and cycles.
/// Each stage reports every problem it finds, in the order of the file, each at its line and
/// column; a stage runs only if the one before it found nothing.
enum PipelineFile {
    /// The largest pipeline file read: far beyond any real one, and a bound on what a mistaken
    /// path (a device, a log file) costs.
    static let largestFile = 16 << 20

    static func load(path: String) throws(PipelineError) -> PipelineDocument {
        let data: Data
        do {
            data = try FileReader.contents(of: path, limit: largestFile)
        } catch {
            throw PipelineError(lines: ["\(path): cannot read: \(error.reason)"])
        }
        return try parse(data, named: path, directory: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    static func parse(_ data: Data, named file: String, directory: URL) throws(PipelineError) -> PipelineDocument {
        let bytes = [UInt8](data)
        let positions = TextPositions(bytes)
        func failure(_ problems: [PipelineProblem]) -> PipelineError {
            PipelineError(lines: render(problems, file: file, positions: positions))
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw failure([PipelineProblem(offset: error.offset, message: error.message)])
        }
        var reader = PipelineSchemaReader()
        guard let raw = reader.read(document) else { throw failure(reader.problems) }
        var checker = PipelineChecker(document: document)
        let pipeline = checker.check(raw, directory: directory)
        guard checker.problems.isEmpty, let pipeline else { throw failure(checker.problems) }
        return PipelineDocument(pipeline: pipeline, file: file, root: document, positions: positions)
    }

    /// `file:line:column: message` for each problem, in the order of the file (problems about
    /// the same place keep the order they were found in).
    static func render(_ problems: [PipelineProblem], file: String, positions: TextPositions) -> [String] {
        let places = positions.positions(of: problems.compactMap(\.offset))
        let sorted = problems.enumerated().sorted { ($0.element.offset ?? -1, $0.offset) < ($1.element.offset ?? -1, $1.offset) }
        return sorted.map { _, problem in
            let place = problem.offset.flatMap { places[$0] }.map { "\(file):\($0)" } ?? file
            return "\(place): \(problem.message)"
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
