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
            throw PipelineError(lines: ["\(path): cannot read: \(error.reason)".escapingControlCharacters])
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
    /// the same place keep the order they were found in). A message quotes the file's names
    /// and values as they are written, so each line is escaped: one line, no control characters.
    static func render(_ problems: [PipelineProblem], file: String, positions: TextPositions) -> [String] {
        let places = positions.positions(of: problems.compactMap(\.offset))
        let sorted = problems.enumerated().sorted { ($0.element.offset ?? -1, $0.offset) < ($1.element.offset ?? -1, $1.offset) }
        return sorted.map { _, problem in
            let place = problem.offset.flatMap { places[$0] }.map { "\(file):\($0)" } ?? file
            return "\(place): \(problem.message)".escapingControlCharacters
        }
    }

    /// The known name nearest to a misspelt one (edit distance at most 2; the first of equals).
    /// Each comparison costs at most five steps per character of the shorter word, and none
    /// at all for a name whose length differs by more than 2: a search is linear in the total
    /// length of the names.
    static func closest(to word: String, among names: [String]) -> String? {
        let target = Array(word.lowercased())
        var best: (name: String, distance: Int)?
        for name in names {
            let limit = min(best.map { $0.distance - 1 } ?? 2, 2)
            guard limit >= 0, let distance = editDistance(target, Array(name.lowercased()), atMost: limit) else { continue }
            best = (name, distance)
        }
        return best?.name
    }

    /// The Levenshtein distance between `a` and `b` if it is at most `limit`, else nil: only
    /// the cells within `limit` of the diagonal can hold a distance that small.
    static func editDistance(_ a: [Character], _ b: [Character], atMost limit: Int) -> Int? {
        guard abs(a.count - b.count) <= limit else { return nil }
        let beyond = limit + 1
        // previous[j] is the distance between a[..<i] and b[..<j], for j within the band.
        var previous = (0...b.count).map { $0 <= limit ? $0 : beyond }
        var current = [Int](repeating: beyond, count: b.count + 1)
        guard !a.isEmpty else { return b.count }
        for i in 1...a.count {
            let low = max(1, i - limit)
            let high = min(b.count, i + limit)
            current[0] = i <= limit ? i : beyond
            if low > 1 { current[low - 1] = beyond }
            var smallest = current[0]
            if low <= high {
                for j in low...high {
                    let replace = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                    let delete = previous[j] + 1
                    let insert = current[j - 1] + 1
                    current[j] = min(replace, delete, insert, beyond)
                    smallest = min(smallest, current[j])
                }
            }
            if high < b.count { current[high + 1] = beyond }
            guard smallest <= limit else { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
