import Foundation

/// A pipeline file that cannot be run: one line per problem, each naming the file, the place
/// (line:column when known), the step and the field.
struct PipelineError: Error, CustomStringConvertible {
    var lines: [String]
    var description: String { lines.joined(separator: "\n") }
}

/// One thing wrong with a pipeline file: the byte offset it is about (nil: the file as a
/// whole) and what is wrong.
struct PipelineProblem: Equatable {
    var offset: Int?
    var message: String
}
