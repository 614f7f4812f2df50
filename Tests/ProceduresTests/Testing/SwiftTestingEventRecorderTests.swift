import Foundation
import ProceduresTestSupport
import ProceduresTesting
import Testing

/// `ProcedureEventRecorder` in a Swift Testing test: it records the event order, and an overlap
/// of two callbacks of one procedure becomes an issue (XCTest's `XCTFail` would go unseen).
@Suite struct SwiftTestingEventRecorderTests {
    @Test func recordsTheEventOrderOfAProcedure() async throws {
        let recorder = ProcedureEventRecorder()
        let procedure = TestProcedure(recorder: recorder)
        try await wait(for: procedure)
        #expect(recorder.events(of: procedure) == [.willExecute, .execute, .didExecute, .willFinish, .didFinish])
        #expect(recorder.overlaps.isEmpty)
    }

    @Test func anOverlapOfTwoCallbacksIsRecordedAsAnIssue() async throws {
        let recorder = ProcedureEventRecorder()
        let procedure = TestProcedure(name: "overlapping")
        let issues = LockedBox<[String]>([])
        withKnownIssue {
            recorder.record(.execute, of: procedure) {
                recorder.record(.other, of: procedure) {}
            }
        } matching: { issue in
            issues.mutate { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
            return true
        }
        #expect(issues.value == ["Callbacks overlapped: overlapping: other overlapped execute"])
        #expect(recorder.overlaps == ["overlapping: other overlapped execute"])
    }
}
