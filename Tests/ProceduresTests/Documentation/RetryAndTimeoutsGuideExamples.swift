import Foundation
import ProceduresTesting
import XCTest

// Documentation/RetryAndTimeouts.md, verbatim.

/// One try at fetching: `load` answers with the data or an error, whenever it likes (or
/// never: that is what the timeout is for).
final class FetchAttempt: Procedure, @unchecked Sendable {
    // @unchecked: `data` and `answered` are only touched under `lock`.
    typealias Load = @Sendable (@escaping @Sendable (Result<Data, any Error>) -> Void) -> Void
    private let load: Load
    private let lock = NSLock()
    private var answered = false
    private var received: Data?

    init(load: @escaping Load) {
        self.load = load
        super.init()
    }

    /// The data, once the attempt succeeded.
    var data: Data? { lock.withLock { received } }

    override func execute() {
        load { result in self.answer(result) }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        // Timed out (or cancelled): stop waiting for the answer.
        answer(.failure(CancellationError()))
    }

    /// The first answer finishes the attempt; a late one is dropped.
    private func answer(_ result: Result<Data, any Error>) {
        let first = lock.withLock { () -> Bool in
            defer { answered = true }
            if !answered, case .success(let data) = result { received = data }
            return !answered
        }
        guard first, isExecuting else { return }
        switch result {
        case .success: finish()
        case .failure(let error): finish(withError: isCancelled ? nil : error)
        }
    }
}

/// The server said no for good: trying again will not help.
struct PermanentFailure: Error {}

/// Up to five attempts, each cut off after 10 s, with exponential back-off between them.
func resilientFetch(
    backOff: WaitStrategy = .exponential(initial: 1, maximum: 30, jitter: .full),
    clock: any ProcedureClock = SystemClock.shared,
    load: @escaping FetchAttempt.Load
) -> RetryProcedure<FetchAttempt> {
    RetryProcedure(
        maxAttempts: 5, wait: backOff, clock: clock,
        retry: { failure, next in
            failure.error is PermanentFailure ? nil : next
        }
    ) {
        FetchAttempt(load: load).timeout(after: 10, clock: clock)
    }
}

/// A server for the test: it answers each request as scripted.
final class ScriptedServer: @unchecked Sendable {
    // @unchecked: `script` and `count` are only touched under `lock`.
    enum Answer { case fail, hang, data(String) }
    private let lock = NSLock()
    private var script: [Answer]
    private var count = 0
    private let onRequest: @Sendable (Int) -> Void

    /// `onRequest` hears each request's number (1, 2…) as it arrives.
    init(_ script: [Answer], onRequest: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.script = script
        self.onRequest = onRequest
    }

    var requests: Int { lock.withLock { count } }

    func load(_ reply: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        let (number, answer) = lock.withLock { () -> (Int, Answer) in
            count += 1
            return (count, script.isEmpty ? .hang : script.removeFirst())
        }
        onRequest(number)
        DispatchQueue.global().async {
            switch answer {
            case .fail: reply(.failure(URLError(.cannotConnectToHost)))
            case .hang: break
            case .data(let text): reply(.success(Data(text.utf8)))
            }
        }
    }
}

final class RetryAndTimeoutsGuideTests: XCTestCase {
    func testFlakyFetchRecoversOnTheManualClock() {
        let clock = ManualClock()
        let secondRequest = expectation(description: "the second attempt's request")
        let server = ScriptedServer([.fail, .hang, .data("hello")]) { number in
            if number == 2 { secondRequest.fulfill() }
        }
        let fetch = resilientFetch(backOff: .exponential(initial: 1, maximum: 30), clock: clock, load: server.load)
        ProcedureQueue().addOperation(fetch)

        advance(clock, by: 1)   // the back-off after the first failure
        wait(for: [secondRequest], timeout: 10)  // the second attempt has asked...
        advance(clock, by: 10)  // ...and hangs: its timeout fires
        advance(clock, by: 2)   // the back-off after the timeout
        wait(for: fetch)

        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.current?.data, Data("hello".utf8))
        XCTAssertEqual(server.requests, 3)
        XCTAssertEqual(clock.now, 13)
    }

    func testFlakyFetchGivesUpWithTheLastError() {
        let clock = ManualClock()
        let fetch = resilientFetch(clock: clock) { reply in
            reply(.failure(PermanentFailure()))
        }
        wait(for: fetch)
        assertProcedureFinishedWithErrors(fetch, count: 1)
        XCTAssertTrue(fetch.errors.first is PermanentFailure)
        XCTAssertEqual(fetch.count, 1)
    }

    func testFlakyFetchInRealTime() {
        let server = ScriptedServer([.fail, .data("hello")])
        let fetch = resilientFetch(backOff: .constant(0.01), load: server.load)
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(server.requests, 2)
    }

    func testWaitStrategiesAsValues() {
        let backOff = WaitStrategy.exponential(initial: 0.5, maximum: 8)
        let waits = (1...6).map { backOff.interval(forWait: $0) }
        // [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
        XCTAssertEqual(waits, [0.5, 1.0, 2.0, 4.0, 8.0, 8.0])
    }

    func testRepeatPolling() {
        let clock = ManualClock()
        let polls = LockedBox(0)
        let poll = RepeatProcedure(max: 3, wait: .constant(60), clock: clock) {
            BlockProcedure { polls.mutate { $0 += 1 } }
        }
        ProcedureQueue().addOperation(poll)
        advance(clock, by: 60)
        advance(clock, by: 60)
        wait(for: poll)
        XCTAssertEqual(polls.value, 3)
    }

    func testDeadlineCoversTheWaitForACategory() {
        let busy = HeldProcedure(name: "busy")
        busy.addCondition(MutuallyExclusive(category: "database"))
        let queue = ProcedureQueue()
        queue.addOperation(busy)
        wait(for: [busy.executing], timeout: 10)
        let twoOClock = Date().addingTimeInterval(0.05)  // in the guide, a real 02:00

        let migrate = MigrateProcedure()
        migrate.addCondition(MutuallyExclusive(category: "database"))
        // Give up if the database is still busy (or the work unfinished) at 02:00.
        migrate.addObserver(TimeoutObserver(until: twoOClock))
        queue.addOperation(migrate)

        wait(for: migrate)
        assertProcedureCancelled(migrate, withErrors: true)
        XCTAssertFalse(migrate.migrated)
        busy.release()
        wait(for: busy)
    }
}

/// The guide's database migration: it only records that it ran.
final class MigrateProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `ran` is a locked box.
    private let ran = LockedBox(false)
    var migrated: Bool { ran.value }

    override func execute() {
        ran.mutate { $0 = true }
        finish()
    }
}
