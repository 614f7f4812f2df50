import Foundation

/// Where the lines a step prints go, as they come: standard output to `NAME.log`, standard
/// error to `NAME.err.log` (kept apart, so that a step's answer can be read from its log),
/// both to the step's ``StepTranscript`` for the terminal, and, with `--output=prefixed`, to
/// the display at once.
///
/// A try's two streams are delivered on its process's one serial queue, and tries run one
/// after another, so lines are written in the order they arrive.
final class StepOutputSink: Sendable {
    let transcript: StepTranscript
    private let output: FileHandle
    private let errors: FileHandle
    private let record: StepRecord
    private let display: (any Display)?
    /// Told of `::progress` lines, whatever `--output` says.
    private let progressDisplay: any Display

    /// Creates (or empties) the step's two logs.
    init(for record: StepRecord, context: RunContext) throws {
        let name = record.step.name
        output = try Self.open(context.logURL(for: name))
        do {
            errors = try Self.open(context.errorLogURL(for: name))
        } catch {
            try? output.close()
            throw error
        }
        transcript = StepTranscript(keeping: context.outputMode.transcriptLimit)
        self.record = record
        display = context.outputMode == .prefixed ? context.display : nil
        progressDisplay = context.display
    }

    private static func open(_ url: URL) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return try FileHandle(forWritingTo: url)
    }

    func write(_ text: String, stream: StepTranscript.Stream) {
        let line = StepTranscript.Line(stream: stream, text: text)
        (stream == .error ? errors : output).write(Data((text + "\n").utf8))
        if stream == .output, let fraction = StepProgress.parse(text) {
            // In the log, not on the terminal: the display shows it as progress.
            record.progress = fraction
            progressDisplay.stepProgressed(record, fraction: fraction)
            return
        }
        transcript.append(line)
        display?.stepPrinted(record, line)
    }

    /// The marker before a try after the first, in both logs and the transcript.
    func beginTry(_ attempt: Int, of attempts: Int) {
        let marker = StepLog.marker(attempt: attempt, of: attempts)
        output.write(Data(marker.utf8))
        errors.write(Data(marker.utf8))
        transcript.append(StepTranscript.Line(stream: .marker, text: String(marker.dropLast())))
    }

    func close() {
        try? output.close()
        try? errors.close()
    }
}
