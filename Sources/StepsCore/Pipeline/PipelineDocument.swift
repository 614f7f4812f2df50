import Foundation

/// A checked pipeline and the text it was read from, so that a later check (the programs
/// `--dry-run` looks up) can say where in the file a problem is, as the file's own checks do.
struct PipelineDocument: Sendable {
    var pipeline: Pipeline
    /// The file's name as messages show it.
    var file: String
    /// The file's JSON, with the offset of every value.
    var root: JSONValue
    var positions: TextPositions

    /// `file:line:column: message` for each problem, in the order of the file.
    func render(_ problems: [PipelineProblem]) -> [String] {
        PipelineFile.render(problems, file: file, positions: positions)
    }
}
