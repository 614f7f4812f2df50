import Foundation
import ProceduresTesting
import XCTest

/// `ReduceProcedure` and the reductions built on it: Map, Filter, FlatMap, CompactMap.
final class SequenceProcedureTests: MisuseRecordingTestCase {
    func testReduceCombinesInOrder() {
        let join = ReduceProcedure(input: ["a", "b", "c"], "") { $0 + $1 }
        wait(for: join)
        XCTAssertEqual(join.output, "abc")
        XCTAssertNil(join.partialOutput, "a reduction that succeeded keeps no partial output")
    }

    func testReduceIntoUpdatesTheAccumulator() {
        let counts = ReduceProcedure(input: ["a", "b", "a"], into: [String: Int]()) { $0[$1, default: 0] += 1 }
        wait(for: counts)
        XCTAssertEqual(counts.output, ["a": 2, "b": 1])
    }

    func testReduceTakesAnInjectedInput() {
        let numbers = ResultProcedure { [1, 2, 3, 4] }
        let sum = ReduceProcedure(0) { (total: Int, x: Int) in total + x }
        sum.injectResult(from: numbers)
        wait(for: numbers, sum)
        XCTAssertEqual(sum.output, 10)
    }

    func testReduceOfNothingIsTheInitialValue() {
        let sum = ReduceProcedure(input: [Int](), 5) { $0 + $1 }
        wait(for: sum)
        XCTAssertEqual(sum.output, 5)
    }

    func testReduceWithoutInputFailsWithMissingInput() {
        let sum = ReduceProcedure<Int, Int>(0) { $0 + $1 }
        wait(for: sum)
        assertProcedureFinishedWithErrors(sum, count: 1)
        guard case .missingInput = sum.errors.first as? ProcedureError else {
            return XCTFail("expected missingInput, got \(sum.errors)")
        }
    }

    func testAnErrorStopsTheReductionAndKeepsWhatCameBefore() {
        let error = TestError("three")
        let calls = LockedBox(0)
        let sum = ReduceProcedure(input: [1, 2, 3, 4], 0) { (total: Int, x: Int) in
            calls.mutate { $0 += 1 }
            if x == 3 { throw error }
            return total + x
        }
        wait(for: sum)
        assertProcedureFinishedWithErrors(sum, count: 1)
        XCTAssertEqual(sum.errors.first as? TestError, error)
        XCTAssertNil(sum.output)
        XCTAssertEqual(sum.partialOutput, 3)
        XCTAssertEqual(calls.value, 3, "no element after the failing one is combined")
    }

    func testACancelInTheMiddleStopsBeforeTheNextElementAndKeepsThePartialResult() {
        let calls = LockedBox(0)
        let box = LockedBox<ReduceProcedure<Int, Int>?>(nil)
        let sum = ReduceProcedure(input: Array(0..<1_000), 0) { (total: Int, x: Int) in
            calls.mutate { $0 += 1 }
            if x == 500 { box.value?.cancel() }
            return total + x
        }
        box.mutate { $0 = sum }
        let future = ProcedureQueue().future(sum)
        wait(for: sum)
        assertProcedureCancelled(sum)
        XCTAssertEqual(calls.value, 501, "the closure is not called again once cancel() returned")
        XCTAssertEqual(sum.partialOutput, (0...500).reduce(0, +))
        XCTAssertNil(sum.output)
        XCTAssertEqual(future.result?.isCancelled, true)
    }

    func testACancelBeforeItStartsNeverCallsTheClosure() {
        let calls = LockedBox(0)
        let sum = ReduceProcedure(input: [1, 2], 0) { (total: Int, x: Int) in
            calls.mutate { $0 += 1 }
            return total + x
        }
        sum.cancel()
        wait(for: sum)
        assertProcedureCancelled(sum)
        XCTAssertEqual(calls.value, 0)
    }

    func testMapTransformsEachElementInOrder() {
        let lengths = MapProcedure(input: ["a", "bcd", ""]) { $0.count }
        wait(for: lengths)
        XCTAssertEqual(lengths.output, [1, 3, 0])
    }

    func testMapThatThrowsKeepsTheElementsMappedSoFar() {
        let parse = MapProcedure(input: ["1", "2", "x", "4"]) { (text: String) -> Int in
            guard let number = Int(text) else { throw TestError(text) }
            return number
        }
        wait(for: parse)
        assertProcedureFinishedWithErrors(parse, count: 1)
        XCTAssertEqual(parse.partialOutput, [1, 2])
    }

    func testFilterKeepsTheMatchingElementsInOrder() {
        let evens = FilterProcedure(input: Array(1...10)) { $0 % 2 == 0 }
        wait(for: evens)
        XCTAssertEqual(evens.output, [2, 4, 6, 8, 10])
    }

    func testFlatMapConcatenates() {
        let letters = FlatMapProcedure(input: ["ab", "", "c"]) { Array($0) }
        wait(for: letters)
        XCTAssertEqual(letters.output, ["a", "b", "c"])
    }

    func testCompactMapDropsNils() {
        let numbers = CompactMapProcedure(input: ["1", "x", "3"]) { Int($0) }
        wait(for: numbers)
        XCTAssertEqual(numbers.output, [1, 3])
    }

    func testReductionsChainThroughInjection() {
        let words = ResultProcedure { ["apple", "kiwi", "banana", "fig"] }
        let long = FilterProcedure { (word: String) in word.count > 3 }
        long.injectResult(from: words)
        let lengths = MapProcedure { (word: String) in word.count }
        lengths.injectResult(from: long)
        let total = ReduceProcedure(0) { (sum: Int, x: Int) in sum + x }
        total.injectResult(from: lengths)
        wait(for: words, long, lengths, total)
        XCTAssertEqual(total.output, 15)
    }
}

/// `map`, `filter`, `flatMap`, `compactMap` and `reduce` on a procedure whose output is a
/// sequence: ProcedureKit's shorthands.
final class SequenceOutputShorthandTests: MisuseRecordingTestCase {
    private func numbers(failing error: (any Error)? = nil) -> ResultProcedure<[Int]> {
        ResultProcedure {
            if let error { throw error }
            return Array(0...9)
        }
    }

    func testMapOfAnOutputMapsItsElementsAndDependsOnIt() {
        let source = numbers()
        let doubled = source.map { $0 * 2 }
        XCTAssertTrue(doubled.dependencies.contains { $0 === source })
        wait(for: source, doubled)
        assertProcedureFinished(doubled)
        XCTAssertEqual(doubled.output, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
    }

    func testFilterOfAnOutputKeepsTheMatchingElements() {
        let source = numbers()
        let evens = source.filter { $0 % 2 == 0 }
        wait(for: source, evens)
        XCTAssertEqual(evens.output, [0, 2, 4, 6, 8])
    }

    func testCompactMapAndFlatMapOfAnOutput() {
        let source = numbers()
        let halves = source.compactMap { $0 % 2 == 0 ? $0 / 2 : nil }
        let pairs = source.flatMap { [$0, $0] }
        wait(for: source, halves, pairs)
        XCTAssertEqual(halves.output, [0, 1, 2, 3, 4])
        XCTAssertEqual(pairs.output?.count, 20)
        XCTAssertEqual(pairs.output?.prefix(4), [0, 0, 1, 1])
    }

    func testReduceOfAnOutputCombinesItsElements() {
        let source = numbers()
        let total = source.reduce(0, +)
        let counts = source.reduce(into: [Bool: Int]()) { $0[$1 % 2 == 0, default: 0] += 1 }
        wait(for: source, total, counts)
        XCTAssertEqual(total.output, 45)
        XCTAssertEqual(counts.output, [true: 5, false: 5])
    }

    func testShorthandsChainAfterGathering() {
        let hello = ResultProcedure { "Hello" }
        let world = ResultProcedure { "World" }
        let gathered = [world, hello].gathered()
        let shouted = gathered.map { $0.uppercased() }
        let sentence = gathered.reduce("") { $0.isEmpty ? $1 : "\($0) \($1)" }
        wait(for: hello, world, gathered, shouted, sentence)
        XCTAssertEqual(shouted.output, ["WORLD", "HELLO"])
        XCTAssertEqual(sentence.output, "World Hello")
    }

    func testAFailedSourceCancelsTheShorthandWithItsError() {
        let source = numbers(failing: TestError("no numbers"))
        let doubled = source.map { $0 * 2 }
        let total = source.reduce(0, +)
        wait(for: source, doubled, total)
        for procedure in [doubled, total] as [Procedure] {
            assertProcedureCancelled(procedure, withErrors: true)
            guard case .dependencyFailed(_, let errors)? = procedure.errors.first as? ProcedureError else {
                XCTFail("expected dependencyFailed, got \(procedure.errors)")
                continue
            }
            XCTAssertEqual(errors.first as? TestError, TestError("no numbers"))
        }
    }

    func testAnErrorThrownByTheClosureFailsTheShorthand() {
        let source = numbers()
        let failing = source.filter { _ in throw TestError("filter") }
        wait(for: source, failing)
        assertProcedureFinishedWithErrors(failing, count: 1)
        XCTAssertEqual(failing.errors.first as? TestError, TestError("filter"))
    }
}
