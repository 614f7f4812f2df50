import Foundation
import ProceduresTesting
import XCTest

// The code of Documentation/ComposingProcedures.md and ProceduresAndSwiftConcurrency.md,
// verbatim (DocumentationSnippetsTests checks that every snippet appears in a test file),
// compiled and run with assertions around it.

// MARK: ComposingProcedures.md

final class CountWords: ResultProcedure<Int>, @unchecked Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
        super.init()
        name = "CountWords"
    }

    override func execute() {
        DispatchQueue.global().async { [self] in
            finish(withOutput: text.split(separator: " ").count)
        }
    }
}

final class ComposingProceduresGuideTests: XCTestCase {
    let queue = ProcedureQueue()

    func testTypedOutputs() {
        let answer = ResultProcedure { 6 * 7 }
        let parsed = ResultProcedure { try JSONDecoder().decode([Int].self, from: Data("[1,2,3]".utf8)) }

        wait(for: answer, parsed)
        XCTAssertEqual(answer.output, 42)
        XCTAssertEqual(parsed.output, [1, 2, 3])
        let words = CountWords("a b c d")
        wait(for: words)
        XCTAssertEqual(words.output, 4)
    }

    func testResultInjection() {
        let count = CountWords("the quick brown fox")
        let describe = TransformProcedure { (words: Int) in "\(words) words" }
        describe.injectResult(from: count)
        queue.addOperations([count, describe], waitUntilFinished: false)

        wait(for: describe)
        XCTAssertEqual(describe.output, "4 words")
    }

    func testReadingTheInjectionError() {
        let count = CountWords("never counted")
        count.cancel(withError: TestError("stop"))
        let describe = TransformProcedure { (words: Int) in "\(words) words" }
        describe.injectResult(from: count)
        let reported = LockedBox(false)
        describe.addDidFinishBlockObserver { _, errors in
            if case ProcedureError.dependencyCancelled? = errors.first { reported.mutate { $0 = true } }
        }
        describe.addDidFinishBlockObserver { describe, errors in
            if case ProcedureError.dependencyFailed(let name, let causes)? = errors.first {
                print("\(name) failed: \(causes)")
            }
        }
        wait(for: count, describe)
        XCTAssertTrue(reported.value)
        assertProcedureCancelled(describe, withErrors: true)
    }

    func testFuturesFromProcedures() {
        let doubled: Future<Int> = queue.future(CountWords("one two three")).map { $0 * 2 }
        doubled.onSuccess { print($0) }   // 6

        XCTAssertEqual(waitForResult(of: doubled)?.value, 6)
    }

    func testCancellingAProceduresFuture() {
        let slow = queue.future(CountWords(String(repeating: "word ", count: 1_000)))
        slow.cancel()   // asks: the procedure is cancelled unless it already finished

        let result = waitForResult(of: slow)
        XCTAssertTrue(result?.isCancelled == true || result?.value == 1_000, "\(result?.summary ?? "nil")")
    }

    func testProceduresFromFutures() {
        func fetchGreeting() -> Future<String> {
            let promise = Promise<String>()
            let work = Task {
        if !Task.isCancelled { promise.succeed("hello") }
    }
            promise.onRequestCancel { _ in
                work.cancel()                // stop the work…
                return .complete(.cancelled) // …and complete as cancelled now
            }
                    return promise.future
        }

        let greeting = FutureProcedure(fetchGreeting())
        let shout = TransformProcedure { (text: String) in text.uppercased() }
        shout.injectResult(from: greeting)
        queue.addOperation(GroupProcedure(operations: [greeting, shout]))

        wait(for: shout)
        XCTAssertEqual(shout.output, "HELLO")
        let cancelled = FutureProcedure(fetchGreeting())
        cancelled.cancel()
        wait(for: cancelled)
        assertProcedureCancelled(cancelled)
    }

    func testChainsAndCancellingFromTheTail() {
        let queue = self.queue
        let report = queue.future(CountWords("a b c"))
            .flatMap { words in queue.future(ResultProcedure { words * 10 }) }
            .flatMap { score in queue.future(TransformProcedure(input: score) { "score: \($0)" }) }

        let token = report.cancellationToken()
        token.cancel()   // reaches whichever procedure is running now

        let result = waitForResult(of: report)
        XCTAssertTrue(result?.isCancelled == true || result?.value == "score: 30", "\(result?.summary ?? "nil")")
        let uncancelled = queue.future(CountWords("a b c"))
            .flatMap { words in queue.future(ResultProcedure { words * 10 }) }
            .flatMap { score in queue.future(TransformProcedure(input: score) { "score: \($0)" }) }
        XCTAssertEqual(waitForResult(of: uncancelled)?.value, "score: 30")
    }
}

// MARK: ProceduresAndSwiftConcurrency.md

final class ConcurrencyGuideTests: XCTestCase {
    let queue = ProcedureQueue()

    func testAwaitingAProcedure() async throws {
        let queue = self.queue
        func wordCount(of text: String) async throws -> Int {
            try await queue.run(CountWords(text))
        }

        let count = try await wordCount(of: "to be or not")
        XCTAssertEqual(count, 4)
    }

    func testTaskCancellationBothWays() async throws {
        let queue = self.queue
        let task = Task { try await queue.run(CountWords("many words here")) }
        task.cancel()
        do {
            _ = try await task.value
        } catch is CancellationError {
            print("cancelled")   // or the count, if the procedure finished first
        }
    }

    func testAnAsyncClosureAsAProcedure() async throws {
        let queue = self.queue
        let poll = ResultProcedure { () async throws -> Int in
            var attempts = 0
            while true {
                attempts += 1
                try await Task.sleep(nanoseconds: 10_000_000)   // throws once the procedure is cancelled
                if attempts == 3 { return attempts }
            }
        }
        let attempts = try await queue.run(poll)

        XCTAssertEqual(attempts, 3)
    }

    func testAwaitingAGroup() async throws {
        let queue = self.queue
        let first = CountWords("one two")
        let second = CountWords("three four five")
        let both = GroupProcedure(operations: [first, second])
        try await queue.run(both)
        let total = (first.output ?? 0) + (second.output ?? 0)   // 5

        XCTAssertEqual(total, 5)
    }

    func testAwaitingAChain() async throws {
        let queue = self.queue
        let score = try await queue.future(CountWords("a b c"))
            .flatMap { words in queue.future(ResultProcedure { words * 10 }) }
            .value

        XCTAssertEqual(score, 30)
    }

    func testAProcedureThatBelongsToNoQueue() async throws {
        let queue = self.queue
        let lonely = CountWords("nobody runs me")
        let pending = lonely.future          // pending: `lonely` belongs to no queue
        queue.addOperation(lonely)           // now it runs, and `pending` completes
        let words = try await pending.value

        XCTAssertEqual(words, 3)
    }
}
