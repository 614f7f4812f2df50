import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures
import ProceduresNetwork
import ProceduresTestSupport
import ProceduresTesting
import XCTest

final class NetworkProcedureTests: NetworkTestCase {
    private func fetching(_ path: String, maxAttempts: Int = 5, wait: WaitStrategy = .immediate,
                          clock: any ProcedureClock = SystemClock.shared,
                          shouldRetry: NetworkProcedure<NetworkDataProcedure>.RetryDecision? = nil)
        -> NetworkProcedure<NetworkDataProcedure>
    {
        let request = request(path)
        let session = session!
        if let shouldRetry {
            return NetworkProcedure(maxAttempts: maxAttempts, wait: wait, clock: clock, shouldRetry: shouldRetry) {
                NetworkDataProcedure(session: session, request: request)
            }
        }
        return NetworkProcedure(maxAttempts: maxAttempts, wait: wait, clock: clock) {
            NetworkDataProcedure(session: session, request: request)
        }
    }

    func testAFlakyEndpointSucceedsOnTheThirdAttempt() {
        let fetch = fetching("/flaky/a/3")
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.payload, Data("ok after 3".utf8))
        XCTAssertEqual(fetch.count, 3)
        XCTAssertEqual(server.requestCount("/flaky/a/3"), 3)
    }

    func testGivesUpAfterMaxAttemptsWithTheLastError() {
        let fetch = fetching("/status/503", maxAttempts: 4)
        wait(for: fetch)
        XCTAssertEqual(server.requestCount("/status/503"), 4)
        guard case .unacceptableStatus(503, _, _, _)? = networkError(fetch.errors) else { return XCTFail("\(fetch.errors)") }
        XCTAssertEqual(fetch.errors.count, 1, "only the last attempt's errors")
        XCTAssertNil(fetch.output)
    }

    func testAClientErrorIsNotRetried() {
        let fetch = fetching("/status/404")
        wait(for: fetch)
        XCTAssertEqual(server.requestCount("/status/404"), 1)
        guard case .unacceptableStatus(404, _, let body, _)? = networkError(fetch.errors) else { return XCTFail("\(fetch.errors)") }
        XCTAssertEqual(body, Data("status 404".utf8))
    }

    func testRateLimitAndTimeoutStatusesAreRetried() {
        for status in [408, 429, 500] {
            let path = "/flaky/s\(status)/2?status=\(status)"
            let fetch = fetching(path)
            wait(for: fetch)
            assertProcedureFinished(fetch)
            XCTAssertEqual(server.requestCount("/flaky/s\(status)/2"), 2, "status \(status)")
        }
    }

    func testTheUserDecidesPerResponse() {
        let seen = LockedBox<[Int]>([])  // status codes seen by the retry decisions
        let fetch = fetching("/flaky/b/3?status=404") { failure in
            if case .unacceptableStatus(let code, _, _, _)? = failure.error as? NetworkError { seen.mutate { $0.append(code) } }
            return failure.count < 10  // retry even a 404
        }
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(seen.value, [404, 404])
    }

    func testConnectionFailuresAreRetried() {
        let url = server.url("/bytes/1")
        server.stop()
        let session = session!
        let fetch = NetworkProcedure(maxAttempts: 3, wait: .immediate) {
            NetworkDataProcedure(session: session, request: URLRequest(url: url))
        }
        wait(for: fetch)
        XCTAssertEqual(fetch.count, 3)
        guard case .transport? = networkError(fetch.errors) else { return XCTFail("\(fetch.errors)") }
    }

    func testRetryAfterIsHonouredOnTheClock() {
        let clock = ManualClock()
        // The strategy asks for 1 s; the server's Retry-After of 30 s is longer and wins.
        let fetch = fetching("/flaky/c/2?status=503&retry-after=30", wait: .constant(1), clock: clock)
        ProcedureQueue().addOperation(fetch)
        advance(clock, by: 30)
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(server.requestCount("/flaky/c/2"), 2)
    }

    func testTheBackOffIsKeptWhenLongerThanRetryAfter() {
        let clock = ManualClock()
        let fetch = fetching("/flaky/d/2?status=503&retry-after=2", wait: .constant(5), clock: clock)
        ProcedureQueue().addOperation(fetch)
        advance(clock, by: 5)
        wait(for: fetch)
        assertProcedureFinished(fetch)
    }

    func testRetryAfterIsCappedByMaximumRetryAfter() {
        let clock = ManualClock()
        let request = request("/flaky/e/2?status=503&retry-after=86400")
        let session = session!
        let fetch = NetworkProcedure(maxAttempts: 3, wait: .immediate, clock: clock, maximumRetryAfter: 60) {
            NetworkDataProcedure(session: session, request: request)
        }
        ProcedureQueue().addOperation(fetch)
        advance(clock, by: 60)
        wait(for: fetch)
        assertProcedureFinished(fetch)
    }

    func testCancelDuringTheBackOffFinishesPromptly() {
        let clock = ManualClock()
        let fetch = fetching("/status/503", wait: .constant(60), clock: clock)
        ProcedureQueue().addOperation(fetch)
        waitUntilScheduled(on: clock)  // the first attempt failed; the 60 s wait is pending
        fetch.cancel()
        wait(for: fetch)
        assertProcedureCancelled(fetch)
        XCTAssertEqual(server.requestCount("/status/503"), 1)
    }

    func testCancelDuringASlowAttemptStopsTheRequest() {
        let fetch = fetching("/delay/20000")
        ProcedureQueue().addOperation(fetch)
        waitUntil("the server has the request") { [server] in server!.requestCount("/delay/20000") == 1 }
        let began = Date()
        fetch.cancel()
        wait(for: fetch)
        // Far below the server's 20 s delay (a loose bound: loaded CI machines are slow).
        XCTAssertLessThan(Date().timeIntervalSince(began), 10)
        assertProcedureCancelled(fetch)
        XCTAssertEqual(server.requestCount("/delay/20000"), 1, "no retry after a cancel")
    }

    func testAnAttemptThatTimesOutIsRetried() {
        // The first attempt gets no answer and its request times out (1 s: long enough for the
        // answer to the second on a loaded machine); the second succeeds.
        let session = session!
        let request = request("/flaky/f/2?hang", timeout: 1)
        let fetch = NetworkProcedure(maxAttempts: 2, wait: .immediate) {
            NetworkDataProcedure(session: session, request: request)
        }
        wait(for: fetch, timeout: 20)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.payload, Data("ok after 2".utf8))
    }

    func testRequestTimeoutStopsAHangingAttemptOnTheClockAndRetriesIt() {
        // ProcedureKit's per-attempt `requestTimeout`: the first attempt gets no answer and is
        // cancelled when the clock reaches 5 s; the second succeeds.
        let clock = ManualClock()
        let session = session!
        let request = request("/flaky/g/2?hang", timeout: 60)
        let fetch = NetworkProcedure(maxAttempts: 2, wait: .immediate, clock: clock, requestTimeout: 5) {
            NetworkDataProcedure(session: session, request: request)
        }
        ProcedureQueue().addOperation(fetch)
        waitUntil("the server has the first request") { [server] in server!.requestCount("/flaky/g/2") == 1 }
        advance(clock, by: 5)
        wait(for: fetch, timeout: 20)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.count, 2)
        XCTAssertEqual(fetch.output?.payload, Data("ok after 2".utf8))
        // The timed-out attempt's connection was closed, not left hanging.
        waitUntil("the server saw the first client leave") { [server] in server!.abandonedCount == 1 }
    }

    func testThePayloadIsInjectedWithoutItsResponse() {
        let fetch = fetching("/bytes/4")
        let size = TransformProcedure { (body: Data) in body.count }.injectPayload(fromNetwork: fetch)
        wait(for: fetch, size)
        assertProcedureFinished(size)
        XCTAssertEqual(size.output, 4)
    }

    func testAFailedRequestCancelsThePayloadsReceiverWithItsErrors() {
        let fetch = fetching("/status/404")
        let size = TransformProcedure { (body: Data) in body.count }.injectPayload(fromNetwork: fetch)
        wait(for: fetch, size)
        assertProcedureCancelled(size, withErrors: true)
        XCTAssertEqual(size.errors.count, 1)
        guard case .dependencyFailed(_, let errors)? = size.errors.first as? ProcedureError,
            case .unacceptableStatus(404, _, _, _)? = errors.first as? NetworkError
        else { return XCTFail("\(size.errors)") }
        XCTAssertNil(size.output)
    }
}
