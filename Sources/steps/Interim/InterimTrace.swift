import Foundation

// INTERIM: stands in for the library's trace recorder (issue 15) until it reaches main.

/// Writes a Chrome trace-event JSON file (opens in Perfetto): one slice per step, each on a
/// row of its own among those free at its start.
enum InterimTrace {
    static func write(_ records: [StepRecord], started: Date, to path: String) throws {
        var rows: [Date] = []  // when each row becomes free
        var events: [[String: Any]] = []
        let spans = records.compactMap { record -> (StepRecord, Date, Date)? in
            let snapshot = record.snapshot
            guard let start = snapshot.started else { return nil }
            return (record, start, snapshot.finished ?? Date())
        }.sorted { $0.1 < $1.1 }
        for (record, start, end) in spans {
            let row = rows.firstIndex { $0 <= start } ?? rows.count
            if row == rows.count { rows.append(end) } else { rows[row] = end }
            events.append([
                "name": record.step.name, "ph": "X", "pid": 1, "tid": row + 1,
                "ts": Int(start.timeIntervalSince(started) * 1_000_000),
                "dur": Int(end.timeIntervalSince(start) * 1_000_000),
                "args": ["outcome": record.outcome?.word ?? "stopped", "tries": record.snapshot.attempt, "command": record.step.commandLine],
            ])
        }
        let document: [String: Any] = ["traceEvents": events, "displayTimeUnit": "ms"]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
