import Foundation
import ProceduresTesting
import XCTest

/// `AnyOutputProcedure`, `AnyInputProcedure`, `AnyProcedure`, and where Swift's `any` serves.
final class TypeErasureTests: MisuseRecordingTestCase {
    func testAnExistentialCanBeTheSourceOfAnInjection() {
        let source: any OutputProcedure<Int> = Bool.random() ? ResultProcedure { 4 } : TransformProcedure(input: 2) { $0 * 2 }
        let square = TransformProcedure { (x: Int) in x * x }
        square.injectResult(from: source)
        wait(for: source, square)
        XCTAssertEqual(square.output, 16)
    }

    func testAnyOutputProcedureLetsMixedProceduresBeGathered() {
        let sources: [any OutputProcedure<Int>] = [ResultProcedure { 1 }, TransformProcedure(input: "ab") { $0.count }]
        let wrapped = sources.map { AnyOutputProcedure($0) }
        let all = wrapped.gathered()
        wait(forAll: wrapped + [all])
        XCTAssertEqual(all.output, [1, 2])
    }

    func testAnyOutputProcedureHasNoOutputAfterAFailure() {
        let wrapped = AnyOutputProcedure(ResultProcedure<Int> { throw TestError("e") })
        wait(for: wrapped)
        assertProcedureFinishedWithErrors(wrapped, count: 1)
        XCTAssertNil(wrapped.output)
    }

    func testAnyInputProcedureForwardsItsInjectedInput() {
        let seen = LockedBox<String?>(nil)
        let inner = TransformProcedure { (text: String) in seen.mutate { $0 = text } }
        let wrapped = AnyInputProcedure(inner)
        wrapped.injectResult(from: ResultProcedure { "in" })
        wait(forAll: [wrapped] + wrapped.dependencies.compactMap { $0 as? Procedure })
        XCTAssertEqual(seen.value, "in")
        XCTAssertEqual(wrapped.input, "in")
    }

    func testAWrapperWithoutAnInputLeavesTheWrappedProceduresOwn() {
        // The wrapper stores no input of its own: the wrapped procedure's input (set before it
        // was wrapped) is what runs, and what the wrapper reports.
        let inner = TransformProcedure(input: "own") { (text: String) in text + "!" }
        let wrapped = AnyProcedure(inner)
        XCTAssertEqual(wrapped.input, "own")
        wait(for: wrapped)
        assertProcedureFinished(wrapped)
        XCTAssertEqual(wrapped.output, "own!")
    }

    func testAnyProcedureStoresDifferentClassesWithTheSameTypes() {
        let summaries: [AnyProcedure<[Int], Int>] = [
            AnyProcedure(ReduceProcedure(0) { $0 + $1 }),
            AnyProcedure(TransformProcedure { (numbers: [Int]) in numbers.count }),
        ]
        for summary in summaries { summary.input = [1, 2, 3] }
        wait(forAll: summaries)
        XCTAssertEqual(summaries.map(\.output), [6, 3])
    }

    func testCancellingAnyProcedureCancelsTheWrappedOne() {
        let blocker = Blocker<Int>("inner")
        let inner = ComposedProcedure(blocker)  // an output procedure whose input is irrelevant
        let wrapped = AnyOutputProcedure(inner)
        ProcedureQueue().addOperation(wrapped)
        wait(for: [blocker.executed], timeout: 10)
        wrapped.cancel()
        wait(for: wrapped)
        assertProcedureCancelled(wrapped)
        XCTAssertTrue(blocker.isCancelled)
    }
}
