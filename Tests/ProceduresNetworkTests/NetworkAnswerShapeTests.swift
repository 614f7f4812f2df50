import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures
import ProceduresNetwork
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// What the procedures make of the session's answer when it is not the usual one: a body or a
/// file missing, an error of the session's own; and cancelling from an observer of the start.
final class NetworkAnswerShapeTests: NetworkTestCase {
    func testAnAnswerWithoutABodyIsAnEmptyPayload() {
        // A session may report a bodiless answer (204, HEAD) with no data object at all.
        let rewriting = RewritingSession(base: session, data: { _, response, error in (nil, response, error) })
        let fetch = NetworkDataProcedure(session: rewriting, request: request("/bytes/5"))
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.output?.payload, Data())
        XCTAssertEqual(fetch.output?.statusCode, 200)
    }

    func testADownloadWithoutAFileFailsWithNoPayload() {
        let rewriting = RewritingSession(base: session, download: { _, response, error in (nil, response, error) })
        let download = NetworkDownloadProcedure(session: rewriting, request: request("/bytes/5"))
        wait(for: download)
        assertProcedureFinishedWithErrors(download, count: 1)
        guard case .noPayload? = networkError(download.errors) else { return XCTFail("\(download.errors)") }
    }

    func testASessionErrorThatIsNotAURLErrorIsKeptAsItIs() {
        struct Refused: Error, Equatable {}
        let rewriting = RewritingSession(base: session, data: { data, response, _ in (data, response, Refused()) })
        let fetch = NetworkDataProcedure(session: rewriting, request: request("/bytes/5"))
        wait(for: fetch)
        assertProcedureFinishedWithErrors(fetch, count: 1)
        XCTAssertEqual(fetch.errors.first as? Refused, Refused())
    }

    func testAnNSErrorInTheURLErrorDomainIsATransportError() {
        // Test doubles (ProcedureKit's mock among them) report NSErrors in NSURLErrorDomain,
        // which on Linux do not bridge to URLError: they are the same failure all the same.
        let refused = NSError(domain: NSURLErrorDomain, code: NSURLErrorCannotConnectToHost,
                              userInfo: [NSLocalizedDescriptionKey: "refused by the double"])
        let rewriting = RewritingSession(base: session, data: { _, _, _ in (nil, nil, refused) })
        let fetch = NetworkDataProcedure(session: rewriting, request: request("/bytes/5"))
        wait(for: fetch)
        assertProcedureFinishedWithErrors(fetch, count: 1)
        guard case .transport(let error)? = fetch.networkError else { return XCTFail("\(fetch.errors)") }
        XCTAssertEqual(error.code, .cannotConnectToHost)
        XCTAssertEqual(fetch.networkError?.isTransient, true)
    }

    func testAnNSErrorInTheURLErrorDomainIsRetriedLikeAURLError() {
        let failures = LockedBox(2)  // the first two answers are replaced by the double's error
        let lost = NSError(domain: NSURLErrorDomain, code: NSURLErrorNetworkConnectionLost)
        let rewriting = RewritingSession(base: session, data: { data, response, error in
            let fail = failures.mutate { left -> Bool in
                defer { left = max(0, left - 1) }
                return left > 0
            }
            return fail ? (nil, nil, lost) : (data, response, error)
        })
        let request = request("/bytes/3")
        let fetch = NetworkProcedure(maxAttempts: 3, wait: .immediate) {
            NetworkDataProcedure(session: rewriting, request: request)
        }
        wait(for: fetch)
        assertProcedureFinished(fetch)
        XCTAssertEqual(fetch.count, 3)
        XCTAssertEqual(fetch.output?.payload.count, 3)
    }

    func testCancelledAsItStartsEachProcedureFinishesCancelledWithoutErrors() {
        var post = request("/hang", timeout: 60)
        post.httpMethod = "POST"
        let procedures: [Procedure] = [
            NetworkDataProcedure(session: session, request: request("/hang", timeout: 60)),
            NetworkDownloadProcedure(session: session, request: request("/hang", timeout: 60)),
            NetworkUploadProcedure(session: session, request: post, body: Data("body".utf8)),
        ]
        for procedure in procedures { procedure.addDidExecuteBlockObserver { $0.cancel() } }
        // The request never gets an answer: only the cancel can finish them.
        wait(forAll: procedures, timeout: 20)
        for procedure in procedures {
            assertProcedureCancelled(procedure)
        }
        XCTAssertNil((procedures[0] as? NetworkDataProcedure)?.output)
    }

    func testCancelDuringAnUploadClosesItsConnection() {
        var post = request("/hang", timeout: 60)
        post.httpMethod = "POST"
        let upload = NetworkUploadProcedure(session: session, request: post, body: Data("body".utf8))
        ProcedureQueue().addOperation(upload)
        waitUntil("the server has the request") { [server] in server!.requestCount("/hang") == 1 }
        upload.cancel()
        wait(for: upload)
        assertProcedureCancelled(upload)
        XCTAssertNil(upload.output)
        waitUntil("the server saw the client leave") { [server] in server!.abandonedCount == 1 }
    }

    func testNetworkErrorSaysWhyTheRequestFailed() {
        let refused = server.url("/bytes/1")
        let missing = NetworkDataProcedure(session: session)
        let session = session!
        let notFound = request("/status/404")
        let rejected = NetworkProcedure(maxAttempts: 1) { NetworkDataProcedure(session: session, request: notFound) }
        let fine = NetworkDataProcedure(session: session, request: request("/bytes/1"))
        wait(for: missing, rejected, fine)
        server.stop()
        let failed = NetworkDownloadProcedure(session: session, request: URLRequest(url: refused))
        wait(for: failed)
        guard case .transport? = failed.networkError else { return XCTFail("\(failed.errors)") }
        guard case .unacceptableStatus(404, _, _, _)? = rejected.networkError else { return XCTFail("\(rejected.errors)") }
        XCTAssertNil(missing.networkError, "no request is a ProcedureError, not a network one")
        XCTAssertFalse(missing.errors.isEmpty)
        XCTAssertNil(fine.networkError)
    }

    func testCancelsRacingTheAnswersFinishEachRequestOnceWithoutErrors() {
        // The cancel lands as the request starts, while it is in flight, or as the answer
        // arrives: whichever wins, the procedure finishes once, and succeeds only with its body.
        // (The session has no URLCache: with one, FoundationNetworking crashes on Linux when a
        // data task is cancelled during its cache look-up, just after it starts.)
        let count = stressIterations(300)
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let finishes = LockedBox<[Int]>(Array(repeating: 0, count: count))
        let fetches = (0..<count).map { index in
            let fetch = NetworkDataProcedure(session: session, request: request("/bytes/\(index % 7)"))
            fetch.addDidFinishBlockObserver { _, _ in finishes.mutate { $0[index] += 1 } }
            // Spread over the request's life, from its start to after a loopback answer.
            fetch.addDidExecuteBlockObserver { fetch in
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds((index * 37) % 3000)) { fetch.cancel() }
            }
            return fetch
        }
        queue.addOperations(fetches, waitUntilFinished: false)
        wait(forAll: fetches, on: queue, timeout: 120)
        for (index, fetch) in fetches.enumerated() {
            XCTAssertTrue(fetch.errors.isEmpty, "\(fetch.errors)")
            if !fetch.isCancelled { XCTAssertEqual(fetch.output?.payload.count, index % 7) }
        }
        XCTAssertEqual(Set(finishes.value), [1])
    }

    func testResponsesAndRequestsCompareByValue() throws {
        let fetch = NetworkDataProcedure(session: session, request: request("/bytes/2"))
        wait(for: fetch)
        let output = try XCTUnwrap(fetch.output)
        XCTAssertEqual(output, HTTPPayloadResponse(payload: Data("xx".utf8), response: output.response))
        XCTAssertNotEqual(output, HTTPPayloadResponse(payload: Data("x".utf8), response: output.response))
        let body = HTTPPayloadRequest(payload: Data("a".utf8), request: request("/echo"))
        XCTAssertEqual(body, HTTPPayloadRequest(payload: Data("a".utf8), request: request("/echo")))
        XCTAssertNotEqual(body, HTTPPayloadRequest(payload: Data("b".utf8), request: request("/echo")))
    }
}

/// A real session whose answers are rewritten on the way back, for answers a real server
/// cannot produce (no data object, no file, an error of the session's own).
struct RewritingSession: NetworkSession {
    typealias DataAnswer = (Data?, URLResponse?, (any Error)?)
    typealias FileAnswer = (URL?, URLResponse?, (any Error)?)
    let base: URLSession
    var data: @Sendable (Data?, URLResponse?, (any Error)?) -> DataAnswer = { ($0, $1, $2) }
    var download: @Sendable (URL?, URLResponse?, (any Error)?) -> FileAnswer = { ($0, $1, $2) }

    func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        base.makeDataTask(with: request) { [data] in
            let answer = data($0, $1, $2)
            completionHandler(answer.0, answer.1, answer.2)
        }
    }

    func makeDownloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        base.makeDownloadTask(with: request) { [download] in
            let answer = download($0, $1, $2)
            completionHandler(answer.0, answer.1, answer.2)
        }
    }

    func makeUploadTask(
        with request: URLRequest, from body: Data,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        base.makeUploadTask(with: request, from: body) { [data] in
            let answer = data($0, $1, $2)
            completionHandler(answer.0, answer.1, answer.2)
        }
    }
}
