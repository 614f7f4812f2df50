import Foundation

/// What a step printed, both streams in the order their lines arrived, every try (a marker
/// line before each try after the first), for the terminal: the logs keep the streams apart,
/// the terminal shows them together, as they would have appeared there.
///
/// It keeps the last `limit` lines only, so that a step printing gigabytes costs bounded
/// memory; what was left out is counted (and is in the logs).
final class StepTranscript: @unchecked Sendable {
    // @unchecked: `lines`, `start` and `leftOut` are guarded by `lock`.
    enum Stream: Sendable { case output, error, marker }

    struct Line: Sendable, Equatable {
        var stream: Stream
        var text: String
    }

    let limit: Int
    private let lock = NSLock()
    private var lines: [Line] = []
    /// Lines before `start` are dropped (compacted away once they are as many as the kept ones).
    private var start = 0
    private var leftOut = 0

    init(keeping limit: Int) {
        self.limit = max(0, limit)
    }

    func append(_ line: Line) {
        guard limit > 0 else { return }
        lock.withLock {
            lines.append(line)
            if lines.count - start > limit {
                start += 1
                leftOut += 1
                if start >= limit {
                    lines.removeFirst(start)
                    start = 0
                }
            }
        }
    }

    /// The lines kept, and how many earlier ones were left out.
    var snapshot: (lines: [Line], leftOut: Int) {
        lock.withLock { (Array(lines[start...]), leftOut) }
    }
}
