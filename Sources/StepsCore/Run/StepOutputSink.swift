import Foundation
import ProceduresSupport

/// Where the lines a step prints go, as they come: standard output to `NAME.log`, standard
/// error to `NAME.err.log` (kept apart, so that a step's answer can be read from its log),
/// both to the step's ``StepTranscript`` for the terminal, and, with `--output=prefixed`, to
/// the display at once.
///
/// The logs get the step's bytes exactly as it wrote them. What is shown is text: on a
/// terminal, escaped (``TerminalText``), so that a step cannot move the cursor or change
/// colours; elsewhere (a file, a pipe, a CI log that may render colours) as the step printed
/// it, control characters included, with any byte that is not UTF-8 as U+FFFD.
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
    /// Whether what is shown goes to a terminal, and is escaped.
    private let escapes: Bool
    /// The streams whose log ends with a line the step did not end (a try's marker starts a line of its own).
    private let unfinishedLine = LockedValue<Set<StepTranscript.Stream>>([])

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
        escapes = context.showsOnTerminal
    }

    private static func open(_ url: URL) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return try FileHandle(forWritingTo: url)
    }

    /// One line as the step wrote it: its bytes, with its newline if it had one.
    func write(_ bytes: Data, stream: StepTranscript.Stream) {
        // Logs are the record of what happened: a disk that fills up loses what does not fit.
        try? (stream == .error ? errors : output).write(contentsOf: bytes)
        if bytes.last != UInt8(ascii: "\n") { unfinishedLine.withLock { _ = $0.insert(stream) } }
        let content = bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...]
        let text = escapes ? TerminalText.escaped(content) : String(decoding: content, as: UTF8.self)
        let line = StepTranscript.Line(stream: stream, text: text)
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
        let unfinished = unfinishedLine.withLock { lines -> Set<StepTranscript.Stream> in
            defer { lines = [] }
            return lines
        }
        try? output.write(contentsOf: Data(((unfinished.contains(.output) ? "\n" : "") + marker).utf8))
        try? errors.write(contentsOf: Data(((unfinished.contains(.error) ? "\n" : "") + marker).utf8))
        transcript.append(StepTranscript.Line(stream: .marker, text: String(marker.dropLast())))
    }

    func close() {
        try? output.close()
        try? errors.close()
    }
}
