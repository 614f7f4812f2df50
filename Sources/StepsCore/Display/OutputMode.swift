import Foundation

/// What the terminal shows of what steps print (`--output`); the logs always keep everything,
/// byte for byte.
enum OutputMode: String, Sendable, CaseIterable {
    /// Every line as it comes, as `step | line` (as docker compose and turborepo show it),
    /// the names in colour on a terminal.
    case prefixed
    /// A step's lines together, under its result, when it ends.
    case grouped
    /// A failed step's lines, all of them, under its result (the default off a terminal:
    /// a CI log must hold the reason of a failure).
    case failed
    /// Only the last lines of a failed step (the default on a terminal, where the live view
    /// keeps the screen for the steps).
    case quiet

    /// The default: `quiet` on a terminal, `failed` elsewhere.
    static func automatic(onTerminal: Bool) -> OutputMode { onTerminal ? .quiet : .failed }

    /// Lines a step keeps in memory for the terminal (the logs have them all).
    var transcriptLimit: Int {
        switch self {
        case .prefixed: return 0
        case .quiet: return Self.tailLength
        case .grouped, .failed: return 10_000
        }
    }

    static let tailLength = 10

    /// What to show under a finished step's line, if anything.
    func shown(_ transcript: StepTranscript, outcome: StepOutcome, logs: String) -> ShownOutput? {
        let failed: Bool = if case .failed = outcome { true } else { false }
        let (lines, leftOut) = transcript.snapshot
        switch self {
        case .prefixed:
            return nil
        case .quiet:
            // The last lines of the last try: a failure's reason is at its end.
            guard failed else { return nil }
            let lastTry = lines.lastIndex { $0.stream == .marker }.map { lines[($0 + 1)...] } ?? lines[...]
            guard !lastTry.isEmpty else { return nil }
            return ShownOutput(heading: "last lines of \(logs):", lines: Array(lastTry), leftOut: 0)
        case .failed, .grouped:
            guard self == .grouped || failed, !lines.isEmpty else { return nil }
            return ShownOutput(heading: failed ? "output (\(logs)):" : nil, lines: lines, leftOut: leftOut)
        }
    }
}

/// The lines shown under a finished step.
struct ShownOutput: Sendable, Equatable {
    var heading: String?
    var lines: [StepTranscript.Line]
    /// Earlier lines not kept in memory.
    var leftOut: Int

    /// Indented lines, as both displays print them (`styled` adds terminal colours).
    func rendered(styled: Bool) -> [String] {
        let dim = styled ? "\u{1B}[2m" : ""
        let reset = styled ? "\u{1B}[0m" : ""
        var out: [String] = []
        if let heading { out.append("    \(dim)\(heading)\(reset)") }
        if leftOut > 0 { out.append("    \(dim)… \(leftOut) earlier line\(leftOut == 1 ? "" : "s") left out (see the logs)\(reset)") }
        for line in lines {
            switch line.stream {
            case .output: out.append("    \(dim)|\(reset) " + line.text)
            case .error: out.append("    \(styled ? "\u{1B}[31m" : "")|\(reset) " + line.text)
            case .marker: out.append("    \(dim)\(line.text)\(reset)")
            }
        }
        return out
    }
}

/// The `step | ` prefix of `--output=prefixed`: names padded to the longest, each in its own
/// colour on a terminal.
struct OutputPrefix: Sendable {
    private let width: Int
    private let colors: [String: String]

    private static let palette = ["36", "33", "35", "32", "34", "96", "93", "95", "92", "94"]

    init(names: [String], styled: Bool) {
        width = min(24, names.map(\.count).max() ?? 0)
        var colors: [String: String] = [:]
        if styled {
            for (index, name) in names.enumerated() { colors[name] = Self.palette[index % Self.palette.count] }
        }
        self.colors = colors
    }

    /// `line` with its step's prefix.
    func apply(_ name: String, _ line: StepTranscript.Line) -> String {
        let padded = name.rightPadded(to: width)
        guard let color = colors[name] else { return "\(padded) | \(line.text)" }
        return "\u{1B}[\(color)m\(padded) |\u{1B}[0m \(line.text)"
    }
}
