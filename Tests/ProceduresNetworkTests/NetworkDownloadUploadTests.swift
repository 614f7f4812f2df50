import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures
import ProceduresNetwork
import ProceduresTesting
import XCTest

final class NetworkDownloadUploadTests: NetworkTestCase {
    func testDownloadsToATemporaryFileTheCallerOwns() throws {
        let download = NetworkDownloadProcedure(session: session, request: request("/bytes/1000"))
        wait(for: download)
        assertProcedureFinished(download)
        let file = try XCTUnwrap(download.output?.payload)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try Data(contentsOf: file), Data(repeating: UInt8(ascii: "x"), count: 1000))
        XCTAssertEqual(download.output?.statusCode, 200)
    }

    func testDownloadsToTheDestinationReplacingWhatWasThere() throws {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("dest-\(UUID().uuidString)")
        try Data("old".utf8).write(to: destination)
        defer { try? FileManager.default.removeItem(at: destination) }
        let download = NetworkDownloadProcedure(session: session, request: request("/bytes/10"), destination: destination)
        wait(for: download)
        assertProcedureFinished(download)
        XCTAssertEqual(download.output?.payload, destination)
        XCTAssertEqual(try Data(contentsOf: destination).count, 10)
    }

    func testADownloadRejectedByItsStatusLeavesTheDestinationAsItWas() throws {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("dest-\(UUID().uuidString)")
        try Data("old".utf8).write(to: destination)
        defer { try? FileManager.default.removeItem(at: destination) }
        let download = NetworkDownloadProcedure(session: session, request: request("/status/404"), destination: destination)
        download.acceptableStatusCodes = Set(200..<300)
        wait(for: download)
        assertProcedureFinishedWithErrors(download, count: 1)
        guard case .unacceptableStatus(404, _, _, _)? = download.networkError else { return XCTFail("\(download.errors)") }
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
    }

    func testCancelledDownloadFinishesPromptly() {
        let download = NetworkDownloadProcedure(session: session, request: request("/delay/20000", timeout: 60))
        ProcedureQueue().addOperation(download)
        waitUntil("the server has the request") { [server] in server!.requestCount("/delay/20000") == 1 }
        let began = Date()
        download.cancel()
        wait(for: download)
        // Far below the server's 20 s delay (a loose bound: loaded CI machines are slow).
        XCTAssertLessThan(Date().timeIntervalSince(began), 10)
        assertProcedureCancelled(download)
    }

    func testUploadSendsTheBodyAndFetchesTheAnswer() {
        var post = request("/echo")
        post.httpMethod = "POST"
        let upload = NetworkUploadProcedure(session: session, request: post, body: Data("hello server".utf8))
        wait(for: upload)
        assertProcedureFinished(upload)
        XCTAssertEqual(upload.output?.payload, Data("hello server".utf8))
        XCTAssertEqual(server.requestCount("/echo"), 1)
    }

    func testTheUploadsRequestAndBodyCanBeInjected() {
        var post = request("/echo")
        post.httpMethod = "PUT"
        let makeBody = ResultProcedure { [post] in HTTPPayloadRequest(payload: Data("injected body".utf8), request: post) }
        let upload = NetworkUploadProcedure(session: session)
        upload.injectResult(from: makeBody)
        wait(for: makeBody, upload)
        assertProcedureFinished(upload)
        XCTAssertEqual(upload.output?.payload, Data("injected body".utf8))
    }

    func testUploadToAnInvalidURLFails() {
        let upload = NetworkUploadProcedure(session: session, request: URLRequest(url: URL(string: "mailto:someone")!), body: Data())
        wait(for: upload)
        guard case .invalidURL? = networkError(upload.errors) else { return XCTFail("\(upload.errors)") }
    }
}
