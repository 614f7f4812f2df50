import XCTest
@testable import StepsCore

/// What a step printed, kept for the display: the last lines, and what each `--output` mode
/// shows of them.
final class StepTranscriptTests: XCTestCase {
    func testATranscriptKeepsItsLastLinesAndCountsTheOthers() {
        let transcript = StepTranscript(keeping: 3)
        for index in 1...10 { transcript.append(.init(stream: index % 2 == 0 ? .error : .output, text: "\(index)")) }
        let (kept, leftOut) = transcript.snapshot
        XCTAssertEqual(kept.map(\.text), ["8", "9", "10"])
        XCTAssertEqual(kept.map(\.stream), [.error, .output, .error])
        XCTAssertEqual(leftOut, 7)
        let shown = OutputMode.failed.shown(transcript, outcome: .failed(reason: "x", ignored: false), logs: "L")
        XCTAssertEqual(shown?.rendered(styled: false), ["    output (L):", "    … 7 earlier lines left out (see the logs)", "    | 8", "    | 9", "    | 10"])
        XCTAssertNil(OutputMode.failed.shown(transcript, outcome: .succeeded, logs: "L"))
        XCTAssertNil(OutputMode.prefixed.shown(transcript, outcome: .failed(reason: "x", ignored: false), logs: "L"))
        XCTAssertEqual(OutputMode.grouped.shown(transcript, outcome: .succeeded, logs: "L")?.heading, nil)
        XCTAssertEqual(StepTranscript(keeping: 0).snapshot.lines, [], "prefixed keeps nothing")
    }

    func testQuietShowsOnlyTheLastTry() {
        let transcript = StepTranscript(keeping: 10)
        for line in ["a", "b"] { transcript.append(.init(stream: .output, text: line)) }
        transcript.append(.init(stream: .marker, text: "── steps: try 2 of 2 ──"))
        transcript.append(.init(stream: .error, text: "c"))
        let shown = OutputMode.quiet.shown(transcript, outcome: .failed(reason: "x", ignored: false), logs: "L")
        XCTAssertEqual(shown?.lines.map(\.text), ["c"])
    }
}
