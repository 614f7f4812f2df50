import Foundation

/// What must hold for any input, checked by the fuzz target (and by the regression test that
/// replays its findings); a violation stops the fuzzer with the input that caused it.
enum PipelineFuzzCheck {
    static func check(_ data: Data) {
        let file = "fuzz.json"
        do {
            let pipeline = try PipelineFile.parse(data, named: file, directory: URL(fileURLWithPath: "/")).pipeline
            // A pipeline that was accepted can be planned and printed, and drawn (`--graph`).
            _ = PipelinePlan(pipeline).render(jobs: 1)
            _ = PipelineGraph(pipeline: pipeline).dot
        } catch {
            require(!error.lines.isEmpty, "an error without a message")
            // A message may quote the input (an unknown field's name), so a marker the input
            // itself contains proves nothing.
            let text = String(decoding: data, as: UTF8.self)
            let dumps = ["(location:", "FoundationEssentials", "Optional(", "DecodingError", "CodingKeys"]
                .filter { !text.contains($0) }
            for line in error.lines {
                require(line.hasPrefix(file + ":"), "a problem that does not name the file: \(line)")
                // One line each, that does nothing to a terminal: what it quotes is escaped.
                require(!line.unicodeScalars.contains(where: String.needsEscape), "a message with a control character: \(line.debugDescription)")
                // Messages are written for people: no Swift value dumps.
                for dump in dumps {
                    require(!line.contains(dump), "a message with a Swift dump: \(line)")
                }
            }
        }
    }

    private static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError(message()) }
    }
}
