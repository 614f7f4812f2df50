import XCTest
@testable import ProceduresFutures

// The Markdown guides' code, verbatim (only indented), so that every snippet compiles and runs.
// `testEverySnippetOfTheGuidesIsHere` fails if a guide's snippet is edited without this file.
final class GuideExamplesTests: XCTestCase {
    func testFuturesGuide_creating() {
        let promise = Promise<Int>()
        let doubled = promise.future.map(context: .immediate) { $0 * 2 }
        doubled.onSuccess(context: .immediate) { print("doubled:", $0) }
        promise.succeed(21)          // prints "doubled: 42"
        promise.succeed(99)          // returns false: the first completion won
        // Checks (not part of the guide):
        XCTAssertEqual(doubled.result?.value, 42)
    }

    func testFuturesGuide_completionHandlerAdapters() {
        func legacyFetch(_ completion: @escaping (Int?, (any Error)?) -> Void) { completion(7, nil) }
        func legacySave(_ completion: @escaping ((any Error)?) -> Void) { completion(nil) }
        func legacyCount(_ completion: @escaping (Int) -> Void) { completion(3) }

        let fetched: Future<Int> = future(method: legacyFetch)   // (value?, error?)
        let saved: Future<Void> = future(method: legacySave)     // (error?)
        let counted: Future<Int> = future(method: legacyCount)   // (value)
        // Checks (not part of the guide):
        XCTAssertEqual(fetched.result?.value, 7)
        XCTAssertNotNil(saved.result?.value)
        XCTAssertEqual(counted.result?.value, 3)
    }

    func testFuturesGuide_contexts() {
        let queue = DispatchQueue(label: "parser")
        let parsed = Future(value: "42").map(context: queue) { Int($0) ?? 0 }
        parsed.onComplete(context: .immediate) { result in
            print("finished:", result)
        }
        // Checks (not part of the guide):
        let done = expectation(description: "parsed on its queue")
        parsed.onSuccess(context: .immediate) { XCTAssertEqual($0, 42); done.fulfill() }
        wait(for: [done], timeout: 5)
    }

    func testFuturesGuide_combinators() {
        let total = [Future(value: 1), Future(value: 2), Future(value: 3)]
            .fold(context: .immediate, initial: 0) { $0 + $1 }
        let both = zip(Future(value: "a"), Future(value: 1))
        let safe = Future<Int>(error: URLError(.timedOut))
            .recover(context: .immediate) { _ in 0 }
        // Checks (not part of the guide):
        XCTAssertEqual(total.result?.value, 6)
        XCTAssertEqual(both.result?.value?.0, "a")
        XCTAssertEqual(safe.result?.value, 0)
    }

    func testFuturesGuide_cancelling() async {
        func slowAnswer() -> Future<Int> {
            let promise = Promise<Int>()
            let work = Task {
                try await Task.sleep(nanoseconds: 60_000_000_000)
                promise.succeed(42)
            }
            promise.onRequestCancel { _ in
                work.cancel()
                return .complete(.cancelled)
            }
            return promise.future
        }

        let answer = slowAnswer().map(context: .immediate) { "answer: \($0)" }
        answer.cancel()    // reaches slowAnswer's promise, which completes as cancelled
        // answer.result is now .cancelled, and the map closure never ran
        // Checks (not part of the guide):
        XCTAssertEqual(answer.result?.isCancelled, true)
    }

    func testFuturesGuide_treeRule() {
        let shared = Promise<String>()
        shared.onRequestCancel { _ in .complete(.cancelled) }
        let forList = shared.future.map(context: .immediate) { $0.uppercased() }
        let forDetail = shared.future.map(context: .immediate) { $0.count }

        forDetail.cancel()         // forList still wants the value: shared is not asked
        shared.succeed("hello")    // both branches complete normally
        forList.cancel()           // too late: completed futures ignore requests
        // Checks (not part of the guide):
        XCTAssertEqual(forList.result?.value, "HELLO")
        XCTAssertEqual(forDetail.result?.value, 5)
    }

    func testFuturesGuide_treeRuleReleasedConsumer() {
        let source = Promise<String>()
        source.onRequestCancel { _ in .complete(.cancelled) }
        let list = source.future.cancellationToken()
        do {
            let preview = source.future.map(context: .immediate) { $0.count }
            preview.onSuccess(context: .immediate) { print("preview:", $0) }
        }                          // preview released without asking: no longer a consumer
        list.cancel()              // the only consumer left asked: source completes as cancelled
        // Checks (not part of the guide):
        XCTAssertEqual(source.future.result?.isCancelled, true)
    }

    func testFuturesGuide_options() {
        let source = Promise<Int>()
        let branch = source.future.map(context: .immediate) { $0 + 1 }
        branch.cancel(options: [.thisFutureOnly, .forceImmediately])
        // branch.result is .cancelled; source keeps running and can still succeed
        source.succeed(1)
        // Checks (not part of the guide):
        XCTAssertEqual(branch.result?.isCancelled, true)
        XCTAssertEqual(source.future.result?.value, 1)
    }

    func testFuturesGuide_cancelToken() {
        let request = CancellationRequest()
        let loading = Promise<Int>()
        let shown = loading.future.map(context: .immediate, cancelToken: request.token) { "\($0) items" }
        request.cancel()           // e.g. the screen closed
        // shown.result is .cancelled and the closure will never run
        // Checks (not part of the guide):
        XCTAssertEqual(shown.result?.isCancelled, true)
        loading.succeed(3)
        XCTAssertEqual(shown.result?.isCancelled, true)
    }

    func testFuturesGuide_asyncAwait() async throws {
        func loadCount() async throws -> Int {
            let count = Future { () async throws -> Int in 12 }   // runs in a Task
            return try await count.value                           // awaits without blocking a thread
        }
        // Checks (not part of the guide):
        let count = try await loadCount()
        XCTAssertEqual(count, 12)
    }

    func testFuturesGuide_streams() {
        let readings = StreamPromise<Double>(capacity: 2)
        readings.succeed(1.5)
        readings.succeed(2.5)
        readings.succeed(3.5)
        let celsius = readings.stream.map(context: .immediate) { ($0 - 32) / 1.8 }
        celsius.onSuccess(context: .immediate) { print("reading:", $0) }   // replays 2.5 and 3.5
        let unsubscribe = CancellationRequest()
        readings.stream.onSuccess(context: .immediate, cancelToken: unsubscribe.token) { print($0) }
        unsubscribe.cancel()       // that handler gets nothing more
        readings.finish()
        // Checks (not part of the guide):
        XCTAssertEqual(celsius.bufferedResults.count, 2)
        XCTAssertTrue(celsius.isFinished)
    }

    func testCancellationTokensGuide_states() {
        final class Download: Cancelable {
            func cancel() { print("download stopped") }
        }

        let request = CancellationRequest()
        let token = request.token
        let download = Download()
        token.register(download)                  // held weakly
        token.onCancel { print("cancelled") }
        token.onComplete { cancelled in print("completed, cancelled:", cancelled) }

        if !token.isCancelled { print("still wanted") }   // polling is one lock
        request.cancel()                          // handlers run now, on this thread, in order
        // Checks (not part of the guide):
        XCTAssertTrue(token.isCancelled)
        withExtendedLifetime(download) {}
    }

    func testCancellationTokensGuide_combining() {
        let userTapped = CancellationRequest()
        let screenClosed = CancellationRequest()
        let stop = userTapped.token || screenClosed.token
        stop.onCancel { print("stop the work") }
        screenClosed.cancel()     // prints "stop the work"
        // Checks (not part of the guide):
        XCTAssertTrue(stop.isCancelled)
    }

    func testCancellationTokensGuide_tokensAndFutures() {
        let request = CancellationRequest()
        let promise = Promise<Int>()
        promise.future.onSuccess(context: .immediate, cancelToken: request.token) { print("never:", $0) }
        let label = promise.future.map(context: .immediate, cancelToken: request.token) { "value \($0)" }
        request.cancel()
        promise.succeed(1)        // the handler does not run; label is already .cancelled
        // Checks (not part of the guide):
        XCTAssertEqual(label.result?.isCancelled, true)
    }

    func testCancellationTokensGuide_registeringAFutureHandle() {
        let work = Promise<Int>()
        work.onRequestCancel { _ in .complete(.cancelled) }
        let request = CancellationRequest()
        let handle = work.future.cancellationToken()
        request.token.register(handle)     // weak: keep `handle` as long as the link should hold
        request.cancel()
        // work.future.result is .cancelled
        // Checks (not part of the guide):
        XCTAssertEqual(work.future.result?.isCancelled, true)
        withExtendedLifetime(handle) {}
    }

    func testMigrationGuide_example() {
        final class LegacyRequest: @unchecked Sendable {
            // @unchecked: `onDone` is set once before `start()` and read only by `start()` / `cancel()`,
            // which the example calls from one thread.
            var onDone: ((Result<String, any Error>) -> Void)?
            func start() {}
            func cancel() { onDone?(.failure(CancellationError())) }
        }

        func fetchGreeting() -> Future<String> {
            let promise = Promise<String>()
            let request = LegacyRequest()
            request.onDone = { result in
                switch result {
                case .success(let text): promise.succeed(text)
                case .failure(let error) where error is CancellationError: promise.cancel()
                case .failure(let error): promise.fail(error)
                }
            }
            promise.onRequestCancel { _ in
                request.cancel()       // the legacy API confirms through its callback...
                return .continue       // ...which completes the promise as cancelled
            }
            request.start()
            return promise.future
        }

        let greeting = fetchGreeting()
        greeting.cancel()
        // greeting.result is .cancelled
        // Checks (not part of the guide):
        XCTAssertEqual(greeting.result?.isCancelled, true)
    }

    func testEverySnippetOfTheGuidesIsHere() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let root = testFile.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: testFile, encoding: .utf8)
        let normalisedSource = Self.normalised(source)
        for guide in ["Futures.md", "CancellationTokens.md", "MigratingFromFutureLibraries.md"] {
            let text = try String(contentsOf: root.appendingPathComponent("Documentation/\(guide)"), encoding: .utf8)
            let snippets = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
            XCTAssertFalse(snippets.isEmpty, guide)
            for snippet in snippets {
                XCTAssertTrue(normalisedSource.contains(Self.normalised(snippet)), "\(guide) snippet not in the tests:\n\(snippet)")
            }
        }
    }

    /// Lines without their indentation, blank lines dropped.
    private static func normalised(_ text: String) -> String {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
    }
}
