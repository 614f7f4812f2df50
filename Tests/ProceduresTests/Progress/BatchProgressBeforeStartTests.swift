import Foundation
import ProceduresTesting
import Testing

/// A batch's progress knows its size as soon as its input does: observers never see an empty
/// "0 of 0" for a batch that has not started, and one waiting for its input says its total is
/// not known yet.
// An update that never comes fails the test at the time limit rather than hanging the run.
@Suite(.timeLimit(.minutes(1))) struct BatchProgressBeforeStartTests {
    @Test func aBatchGivenItsInputCountsItsElementsBeforeItStarts() async throws {
        let batch = BatchProcedure(input: [1, 2, 3]) { $0 * 2 }
        #expect(batch.currentProgress.totalUnitCount == 3)
        var updates = batch.progressUpdates(minimumInterval: 0).makeAsyncIterator()
        let first = try #require(await updates.next())
        #expect(first.totalUnitCount == 3)
        #expect(first.description == "0.0 % (0 of 3)")
        try await wait(for: batch)
        #expect(batch.finishedWithoutErrors)
        #expect(batch.currentProgress.completedUnitCount == 3)
    }

    @Test func aBatchWaitingForItsInputSaysItsTotalIsNotKnownYetThenCountsTheInput() async throws {
        let batch = BatchProcedure<Int, Int> { $0 * 2 }
        var updates = batch.progressUpdates(minimumInterval: 0).makeAsyncIterator()
        let first = try #require(await updates.next())
        #expect(first.isIndeterminate)
        #expect(first.description == "0 done, total not known yet")
        batch.input = [1, 2]
        let sized = try #require(await updates.next())
        #expect(sized.totalUnitCount == 2)
        #expect(sized.description == "0.0 % (0 of 2)")
        try await wait(for: batch)
        #expect(batch.output == [2, 4])
    }
}
