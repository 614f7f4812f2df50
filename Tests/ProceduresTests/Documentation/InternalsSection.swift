import Foundation

/// A section of a Markdown document: from its heading to the next heading of the same or a
/// higher level, with the tables in it.
struct InternalsSection {
    /// Each table's header cells and its rows' first cells.
    private(set) var tables: [(header: [String], firstCells: [String])] = []

    init?(heading: String, in markdown: String) {
        var level: Int?
        var current: (header: [String], firstCells: [String])?
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") { inCode.toggle() }
            if !inCode, trimmed.hasPrefix("#") {
                let hashes = trimmed.prefix { $0 == "#" }.count
                let title = trimmed.dropFirst(hashes).trimmingCharacters(in: .whitespaces)
                if let open = level {
                    if hashes <= open { break }
                } else if title == heading {
                    level = hashes
                    continue
                }
            }
            guard level != nil, !inCode else { continue }
            guard trimmed.hasPrefix("|") else {
                if let table = current { tables.append(table) }
                current = nil
                continue
            }
            let cells = Self.cells(of: trimmed)
            if current == nil {
                current = (cells, [])
            } else if !cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) {
                current?.firstCells.append(cells.first ?? "")
            }
        }
        guard level != nil else { return nil }
        if let table = current { tables.append(table) }
    }

    /// The names in the first column of the table whose first header cell is `` `name` ``.
    func firstColumn(ofTableHeaded name: String) -> [String]? {
        guard let table = tables.first(where: { $0.header.first == "`\(name)`" }) else { return nil }
        return table.firstCells.flatMap(Self.names)
    }

    /// The names in the first column of every table whose first header cell is `title`.
    func firstColumns(ofTablesHeaded title: String) -> [String] {
        tables.filter { $0.header.first == title }.flatMap { $0.firstCells.flatMap(Self.names) }
    }

    /// A row's cells, split at `|` (not at an escaped `\|`).
    private static func cells(of row: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var previous: Character?
        for character in row.dropFirst() {
            if character == "|", previous != "\\" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
            previous = character
        }
        return cells
    }

    /// The name each code span of `cell` starts with: `` `waiting(count:)` `` names `waiting`,
    /// `` `Step.run(_:)` `` and `` `.run` `` name `run`.
    static func names(in cell: String) -> [String] {
        let spans = cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map(\.element)
        return spans.compactMap { span in
            let head = span.prefix { $0 != "(" && $0 != " " && $0 != ":" }
            let last = head.split(separator: ".").last.map(String.init) ?? ""
            return last.isEmpty ? nil : last
        }
    }
}
