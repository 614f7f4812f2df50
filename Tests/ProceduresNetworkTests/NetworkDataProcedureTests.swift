import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures
import ProceduresNetwork
import ProceduresTesting
import XCTest

final class NetworkDataProcedureTests: NetworkTestCase {
    func testFetchesTheBodyAndTheHTTPResponse() {
        let fetch = NetworkDataProcedure(session: session, request: request("/bytes/5"))
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.payload, Data("xxxxx".utf8))
        XCTAssertEqual(fetch.output?.statusCode, 200)
        XCTAssertEqual(server.requestCount("/bytes/5"), 1)
    }

    func testAnErrorStatusIsStillAResponse() {
        let fetch = NetworkDataProcedure(session: session, request: request("/status/404"))
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.statusCode, 404)
        XCTAssertEqual(fetch.output?.payload, Data("status 404".utf8))
    }

    func testTheRequestCanBeInjected() {
        let makeRequest = ResultProcedure { [server] in URLRequest(url: server!.url("/bytes/3")) }
        let fetch = NetworkDataProcedure(session: session)
        fetch.injectResult(from: makeRequest)
        wait(for: makeRequest, fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.payload.count, 3)
    }

    func testWithoutARequestItFailsWithMissingInput() {
        let fetch = NetworkDataProcedure(session: session)
        wait(for: fetch)
        assertProcedureFinishedWithErrors(fetch, count: 1)
        guard case .missingInput? = fetch.errors.first as? ProcedureError else { return XCTFail("\(fetch.errors)") }
    }

    func testAnInvalidURLFailsWithoutARequest() {
        for text in ["ftp://127.0.0.1/file", "http://", "file:///etc/hostname"] {
            let fetch = NetworkDataProcedure(session: session, request: URLRequest(url: URL(string: text)!))
            wait(for: fetch)
            guard case .invalidURL(let url)? = networkError(fetch.errors) else { return XCTFail("\(text): \(fetch.errors)") }
            XCTAssertEqual(url, text)
        }
    }

    func testARefusedConnectionIsATransientTransportFailure() {
        let url = server.url("/bytes/1")
        server.stop()
        let fetch = NetworkDataProcedure(session: session, request: URLRequest(url: url))
        wait(for: fetch)
        guard let error = networkError(fetch.errors), case .transport(let urlError) = error else {
            return XCTFail("\(fetch.errors)")
        }
        XCTAssertEqual(urlError.code, .cannotConnectToHost)
        XCTAssertTrue(error.isTransient)
    }

    func testADroppedConnectionFailsAsTransport() {
        let fetch = NetworkDataProcedure(session: session, request: request("/drop"))
        wait(for: fetch)
        guard let error = networkError(fetch.errors), case .transport = error else { return XCTFail("\(fetch.errors)") }
        XCTAssertTrue(error.isTransient, "\(error)")
    }

    func testAServerThatNeverAnswersTimesOut() {
        let fetch = NetworkDataProcedure(session: session, request: request("/hang", timeout: 0.5))
        wait(for: fetch, timeout: 20)
        guard let error = networkError(fetch.errors), case .transport(let urlError) = error else {
            return XCTFail("\(fetch.errors)")
        }
        XCTAssertEqual(urlError.code, .timedOut)
        XCTAssertTrue(error.isTransient)
    }

    func testCancelDuringASlowResponseFinishesPromptlyAndCancelsTheRequest() {
        let fetch = NetworkDataProcedure(session: session, request: request("/delay/20000", timeout: 60))
        ProcedureQueue().addOperation(fetch)
        waitUntil("the server has the request") { [server] in server!.requestCount("/delay/20000") == 1 }
        let began = Date()
        fetch.cancel()
        wait(for: fetch, timeout: 10)
        // Far below the server's 20 s delay (a loose bound: loaded CI machines are slow).
        XCTAssertLessThan(Date().timeIntervalSince(began), 10)
        assertProcedureCancelled(fetch)
        XCTAssertNil(fetch.output)
        // The connection is closed: the server sees its client go away long before 20 s.
        waitUntil("the server saw the client leave") { [server] in server!.abandonedCount == 1 }
    }

    func testCancelledBeforeItStartsSendsNoRequest() {
        let fetch = NetworkDataProcedure(session: session, request: request("/bytes/1"))
        fetch.cancel()
        wait(for: fetch)
        assertProcedureCancelled(fetch)
        XCTAssertEqual(server.requestCount("/bytes/1"), 0)
    }

    func testAnAnswerThatIsNotHTTPFails() {
        let fetch = NetworkDataProcedure(session: PlainResponseSession(base: session), request: request("/bytes/1"))
        wait(for: fetch)
        guard case .notHTTPResponse? = networkError(fetch.errors) else { return XCTFail("\(fetch.errors)") }
    }

    func testManyConcurrentRequests() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let count = 100
        let fetches = (0..<count).map { index in NetworkDataProcedure(session: session, request: request("/bytes/\(index)")) }
        wait(forAll: fetches, on: queue, timeout: 60)
        for (index, fetch) in fetches.enumerated() {
            assertProcedureFinished(fetch)
            XCTAssertEqual(fetch.output?.payload.count, index)
        }
    }
}

/// A session that runs requests for real but hands back a plain (non-HTTP) `URLResponse`, as
/// a custom `NetworkSession` for another protocol might.
private struct PlainResponseSession: NetworkSession {
    let base: URLSession

    func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        base.makeDataTask(with: request) { data, response, error in
            let plain = response.map { URLResponse(url: $0.url!, mimeType: nil, expectedContentLength: 0, textEncodingName: nil) }
            completionHandler(data, plain, error)
        }
    }

    func makeDownloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        base.makeDownloadTask(with: request, completionHandler: completionHandler)
    }

    func makeUploadTask(
        with request: URLRequest, from body: Data,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        base.makeUploadTask(with: request, from: body, completionHandler: completionHandler)
    }
}

final class NetworkStatusTests: NetworkTestCase {
    func testAStatusOutsideTheAcceptableOnesFailsWithItsBodyAndRetryAfter() {
        let fetch = NetworkDataProcedure(session: session, request: request("/status/503?retry-after=7"))
        fetch.acceptableStatusCodes = Set(200..<300)
        wait(for: fetch)
        guard let error = networkError(fetch.errors), case .unacceptableStatus(503, _, let body, let retryAfter) = error else {
            return XCTFail("\(fetch.errors)")
        }
        XCTAssertEqual(body, Data("status 503".utf8))
        XCTAssertEqual(retryAfter, 7)
        XCTAssertTrue(error.isTransient)
    }

    func testAnAcceptableStatusSucceeds() {
        let fetch = NetworkDataProcedure(session: session, request: request("/status/404"))
        fetch.acceptableStatusCodes = [200, 404]
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.statusCode, 404)
    }

    func testClientErrorsAreNotTransientButRateLimitsAndTimeoutsAre() {
        func status(_ code: Int) -> NetworkError { .unacceptableStatus(code, url: "u", body: Data(), retryAfter: nil) }
        XCTAssertFalse(status(404).isTransient)
        XCTAssertFalse(status(400).isTransient)
        XCTAssertTrue(status(408).isTransient)
        XCTAssertTrue(status(429).isTransient)
        XCTAssertTrue(status(500).isTransient)
        XCTAssertTrue(status(599).isTransient)
        XCTAssertFalse(NetworkError.invalidURL("x").isTransient)
    }

    func testRetryAfterIsReadAsSecondsOrAsAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)  // Sun, 09 Sep 2001 01:46:40 GMT
        XCTAssertEqual(NetworkError.retryAfterSeconds("120", now: now), 120)
        XCTAssertEqual(NetworkError.retryAfterSeconds("Sun, 09 Sep 2001 01:47:10 GMT", now: now), 30)
        XCTAssertEqual(NetworkError.retryAfterSeconds("Sun, 09 Sep 2001 01:00:00 GMT", now: now), 0)
        XCTAssertNil(NetworkError.retryAfterSeconds("soon", now: now))
        XCTAssertNil(NetworkError.retryAfterSeconds("-5", now: now))
    }
}
