import Foundation

enum Format {
    /// A number without a pointless ".0".
    static func plain(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// 100000 -> "100,000".
    static func count(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }

    /// Two decimals, or two significant digits for a ratio far below 1 (so 0.0038 is not 0.00).
    static func ratio(_ value: Double) -> String {
        guard value < 0.1, value > 0 else { return fixed(value, 2) }
        let digits = Int((-log10(value)).rounded(.down)) + 2
        return fixed(value, digits)
    }

    static func value(_ value: Double?, _ unit: Unit) -> String {
        guard let value, value.isFinite else { return "—" }
        switch unit {
        case .bytesPerItem:
            return "\(Int(value.rounded())) B/op"
        case .seconds:
            switch value {
            case ..<1e-6: return fixed(value * 1e9, 0) + " ns"
            case ..<1e-3: return fixed(value * 1e6, 1) + " µs"
            case ..<1: return fixed(value * 1e3, 1) + " ms"
            default: return fixed(value, 2) + " s"
            }
        }
    }
}

enum Report {
    static let header = ["scenario", "size", "rounds", "ours", "baseline", "ratio", "target", "met", "growth"]

    static func cells(_ row: Row) -> [String] {
        var growth = "—"
        if let value = row.growth {
            growth = Format.fixed(value, 1)
            if value > Runner.superlinearGrowth { growth += " (superlinear)" }
        }
        return [
            row.scenario,
            Format.count(row.size),
            row.rounds > 0 ? String(row.rounds) : "—",
            row.ours == nil ? "not yet wired" : Format.value(row.ours, row.unit),
            Format.value(row.baseline, row.unit),
            row.ratio.map(Format.ratio) ?? "—",
            row.target.label,
            row.met,
            growth,
        ]
    }

    /// The table for a terminal, columns padded.
    static func text(_ rows: [Row]) -> String {
        let table = [header] + rows.map(cells)
        var widths = header.map { _ in 0 }
        for line in table {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ line: [String]) -> String {
            line.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                // Text columns left-aligned, figures right-aligned.
                return index == 0 || index == 6 || index == 7 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([render(header), rule] + rows.map { render(cells($0)) }).joined(separator: "\n")
    }

    static func markdown(_ rows: [Row]) -> String {
        let lines = [header, header.map { _ in "---" }] + rows.map(cells)
        return lines.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
    }

    static func resultsFile(rows: [Row], scenarios: [Scenario], machine: [String], rounds: Int, elapsed: Double) -> String {
        let maxRounds = 3 * rounds
        var out = """
            # Benchmark results

            Written by `make bench` (`swift run -c release procedures-benchmarks` in `Benchmarks/`).
            Do not edit by hand; rerun it.

            **The ratios are the figures that count.** This machine is shared and noisy, so absolute
            times are context only: each scenario runs our code and its baseline in the same
            process, interleaved (ours, baseline, ours, baseline…) for \(rounds) rounds per size
            (up to \(maxRounds) when a size is fast; the *rounds* column says how many), and reports
            the median of each.

            ## Machine

            """
        out += "\n" + machine.map { "- \($0)" }.joined(separator: "\n") + "\n"
        out += "- whole run: \(Format.fixed(elapsed, 0)) s\n\n## Results\n\n"
        out += markdown(rows) + "\n\n"
        out += """
            Columns: *rounds* is how many times each half ran at that size; *ours* and *baseline* are medians over the rounds (S5: percentiles over every
            sample of every round; S7: bytes per pending operation); *ratio* = ours / baseline;
            *growth* = ours at 10N / ours at N (about 10 means linear; above \(Int(Runner.superlinearGrowth)) is flagged).

            ## What each scenario runs

            """
        out += "\n" + scenarios.map { "- **\($0.id) \($0.title)**: \($0.note)" }.joined(separator: "\n") + "\n"
        return out
    }
}
