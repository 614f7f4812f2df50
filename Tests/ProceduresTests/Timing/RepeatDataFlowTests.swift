import Foundation
import ProceduresTesting
import XCTest

/// A repeat (and so a retry) of input or output procedures is one itself, so it can sit in a
/// chain of injections like the procedures it repeats.
final class RepeatDataFlowTests: MisuseRecordingTestCase {
    /// Attempts that greet their input, failing the first `failures` times; every input seen
    /// is recorded.
    private func greetings(failing failures: Int, inputs: LockedBox<[String]>) -> () -> TransformProcedure<String, String> {
        let made = LockedBox(0)
        return {
            let number = made.mutate { $0 += 1; return $0 }
            return TransformProcedure { (name: String) in
                inputs.mutate { $0.append(name) }
                if number <= failures { throw TestError("attempt \(number)") }
                return "Hello \(name)"
            }
        }
    }

    func testARetryGivesItsInjectedInputToEveryAttempt() {
        let inputs = LockedBox<[String]>([])
        let name = ResultProcedure { "Procedures" }
        let retry = RetryProcedure(maxAttempts: 5, attempt: greetings(failing: 2, inputs: inputs))
        retry.injectResult(from: name)
        wait(for: name, retry)
        assertProcedureFinished(retry)
        XCTAssertEqual(inputs.value, ["Procedures", "Procedures", "Procedures"])
        XCTAssertEqual(retry.output, "Hello Procedures")
    }

    func testARepeatGivesItsInputToEveryOperationBeforeTheConfigureBlocks() {
        let inputs = LockedBox<[String]>([])
        let seenByConfigure = LockedBox<[String?]>([])
        let repeated = RepeatProcedure(max: 3, body: greetings(failing: 0, inputs: inputs))
        repeated.appendConfigureBlock { operation in seenByConfigure.mutate { $0.append(operation.input) } }
        repeated.input = "you"
        XCTAssertEqual(repeated.input, "you")
        wait(for: repeated)
        assertProcedureFinished(repeated)
        XCTAssertEqual(inputs.value, ["you", "you", "you"])
        XCTAssertEqual(seenByConfigure.value, ["you", "you", "you"])
    }

    func testAFailedSourceCancelsTheRetryWithoutMakingAnAttempt() {
        let inputs = LockedBox<[String]>([])
        let name = ResultProcedure<String> { throw TestError("no name") }
        let retry = RetryProcedure(maxAttempts: 5, attempt: greetings(failing: 0, inputs: inputs))
        retry.injectResult(from: name)
        wait(for: name, retry)
        assertProcedureCancelled(retry, withErrors: true)
        guard case .dependencyFailed? = retry.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyFailed, got \(retry.errors)")
        }
        XCTAssertEqual(retry.count, 0)
        XCTAssertEqual(inputs.value, [])
    }

    func testTheOutputIsTheLastOperationsOnceTheRepeatSucceeded() {
        let made = LockedBox(0)
        let repeated = RepeatProcedure(max: 3) { () -> ResultProcedure<Int>? in
            let number = made.mutate { $0 += 1; return $0 }
            return ResultProcedure { number * 10 }
        }
        XCTAssertNil(repeated.output)
        wait(for: repeated)
        assertProcedureFinished(repeated)
        XCTAssertEqual(repeated.output, 30)
    }

    func testARetryThatGivesUpHasNoOutput() {
        let inputs = LockedBox<[String]>([])
        let retry = RetryProcedure(maxAttempts: 2, attempt: greetings(failing: 5, inputs: inputs))
        retry.input = "nobody"
        wait(for: retry)
        assertProcedureFinishedWithErrors(retry, count: 1)
        XCTAssertNil(retry.output)
    }

    func testACancelledRepeatHasNoOutput() {
        let repeated = RepeatProcedure(max: 3) { ResultProcedure { 1 } }
        repeated.cancel()
        wait(for: repeated)
        XCTAssertNil(repeated.output)
    }

    func testARetryIsTheSourceOfAnInjection() {
        let inputs = LockedBox<[String]>([])
        let retry = RetryProcedure(maxAttempts: 3, attempt: greetings(failing: 1, inputs: inputs))
        retry.input = "again"
        let shout = TransformProcedure { (text: String) in text.uppercased() }
        shout.injectResult(from: retry)
        wait(for: retry, shout)
        assertProcedureFinished(shout)
        XCTAssertEqual(shout.output, "HELLO AGAIN")
    }

    func testInjectedRetriesRacingCancelGiveEachAttemptItsOwnInput() {
        // Sources finish, inputs are injected, attempts fail and are retried while cancels land
        // at random moments: every retry finishes, and one that succeeded made every attempt
        // with its own source's input and has the output of the last.
        let count = stressIterations(2_000)
        let queue = ProcedureQueue()
        var random = StressRandom()
        var pairs: [(name: ResultProcedure<String>, retry: RetryProcedure<TransformProcedure<String, String>>, inputs: LockedBox<[String]>)] = []
        pairs.reserveCapacity(count)
        for index in 0..<count {
            let inputs = LockedBox<[String]>([])
            let name = ResultProcedure { "n\(index)" }
            let retry = RetryProcedure(maxAttempts: 3, attempt: greetings(failing: index % 3, inputs: inputs))
            retry.injectResult(from: name)
            pairs.append((name, retry, inputs))
            queue.addOperations([name, retry], waitUntilFinished: false)
            if Int.random(in: 0..<2, using: &random) == 0 {
                let delay = Int.random(in: 0..<50, using: &random)
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) { retry.cancel() }
            }
        }
        wait(forAll: pairs.flatMap { [$0.name, $0.retry] as [Procedure] }, timeout: 120)
        let uncancelled = pairs.filter { !$0.retry.isCancelled }.count
        XCTAssertGreaterThanOrEqual(uncancelled, count / 3, "half the retries are never cancelled")
        for (index, pair) in pairs.enumerated() where !pair.retry.isCancelled {
            XCTAssertEqual(pair.retry.output, "Hello n\(index)", "seed \(random.seed)")
            XCTAssertEqual(pair.inputs.value, Array(repeating: "n\(index)", count: index % 3 + 1), "seed \(random.seed)")
        }
        XCTAssertTrue(misuse.all.isEmpty, "\(misuse.all.prefix(3)) seed \(random.seed)")
    }

    func testAFinishedRetryIsReleased() {
        // The iterator, the handler and the waits must not keep the retry (or its attempts)
        // alive once it has finished and its queue let go of it.
        let refs = WeakRefs()
        do {
            let clock = ManualClock()
            let inputs = LockedBox<[String]>([])
            let retry = RetryProcedure(
                maxAttempts: 3, wait: .constant(1), clock: clock, attempt: greetings(failing: 2, inputs: inputs))
            retry.input = "leak"
            refs.track(retry, "retry")
            ProcedureQueue().addOperation(retry)
            advance(clock, by: 1)
            advance(clock, by: 1)
            wait(for: retry)
            assertProcedureFinished(retry)
            if let last = retry.current { refs.track(last, "last attempt") }
        }
        waitUntilReleased(refs)
    }
}
