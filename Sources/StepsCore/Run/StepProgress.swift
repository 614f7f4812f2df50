import Foundation

/// The progress line protocol: a step reports how far it is by printing, on its standard
/// output, a line `::progress DONE/TOTAL` (`::progress 40/100`) or `::progress PERCENT%`
/// (`::progress 40%`). Such lines go to the step's log but not to the terminal; the display
/// shows a bar (live view) or a percentage (plain output) instead. See Documentation/Pipelines.md.
enum StepProgress {
    static let prefix = "::progress "

    /// The fraction done (0...1) a protocol line reports; nil for any other line, or one that
    /// does not parse (it is then shown as printed).
    static func parse(_ line: String) -> Double? {
        guard line.hasPrefix(prefix) else { return nil }
        let value = line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        let fraction: Double
        if value.hasSuffix("%") {
            guard let percent = Double(value.dropLast()) else { return nil }
            fraction = percent / 100
        } else {
            let parts = value.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let done = Double(parts[0]), let total = Double(parts[1]), total > 0 else { return nil }
            fraction = done / total
        }
        guard fraction.isFinite else { return nil }
        return min(1, max(0, fraction))
    }

    /// "[████░░░░░░] 40%", for the live view.
    static func bar(_ fraction: Double, width: Int = 10) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "] " + percent(fraction)
    }

    /// "40%".
    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded(.down)))%" }
}
