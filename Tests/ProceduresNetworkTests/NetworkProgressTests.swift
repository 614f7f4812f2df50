import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ProceduresNetwork
import ProceduresTesting
import XCTest

/// Downloads and uploads count bytes, with a session that counts them.
final class NetworkProgressTests: NetworkTestCase {
    private var counting: ProgressReportingSession!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.urlCache = nil
        counting = ProgressReportingSession(configuration: configuration)
    }

    override func tearDown() {
        counting.invalidate()
        counting = nil
        super.tearDown()
    }

    /// Waits until `procedure`'s progress, as its observers see it, satisfies `condition`.
    private func waitForProgress(of procedure: Procedure, _ condition: @escaping @Sendable (ProgressUpdate) -> Bool) {
        let reached = XCTestExpectation(description: "progress")
        reached.assertForOverFulfill = false
        let observation = procedure.observeProgress(minimumInterval: 0) { if condition($0) { reached.fulfill() } }
        XCTAssertEqual(XCTWaiter().wait(for: [reached], timeout: 10), .completed, "progress: \(procedure.currentProgress)")
        observation.cancel()
    }

    func testDownloadCountsBytesReceived() throws {
        let download = NetworkDownloadProcedure(session: counting, request: request("/halves/200000/download"))
        ProcedureQueue().addOperation(download)
        waitForProgress(of: download) { $0.completedUnitCount == 100_000 }
        XCTAssertEqual(download.currentProgress.totalUnitCount, 200_000)
        XCTAssertEqual(download.currentProgress.fractionCompleted, 0.5)
        server.release("download")
        wait(for: download)
        XCTAssertEqual(download.currentProgress.fractionCompleted, 1)
        XCTAssertEqual(download.currentProgress.completedUnitCount, 200_000)
        let file = try XCTUnwrap(download.output?.payload)
        XCTAssertEqual(try Data(contentsOf: file).count, 200_000)
        try? FileManager.default.removeItem(at: file)
    }

    func testDataRequestCountsBytesReceived() {
        let fetch = NetworkDataProcedure(session: counting, request: request("/halves/50000/data"))
        ProcedureQueue().addOperation(fetch)
        waitForProgress(of: fetch) { $0.completedUnitCount == 25_000 && $0.totalUnitCount == 50_000 }
        server.release("data")
        wait(for: fetch)
        XCTAssertEqual(fetch.output?.payload.count, 50_000)
        XCTAssertEqual(fetch.currentProgress.completedUnitCount, 50_000)
    }

    func testUploadCountsTheBodySent() {
        let body = Data(repeating: 7, count: 1 << 20)
        var post = request("/echo")
        post.httpMethod = "POST"
        let upload = NetworkUploadProcedure(session: counting, request: post, body: body)
        XCTAssertEqual(upload.currentProgress.fractionCompleted, 0)
        wait(for: upload)
        XCTAssertEqual(upload.output?.payload, body)
        XCTAssertEqual(upload.currentProgress.completedUnitCount, Int64(body.count))
        XCTAssertEqual(upload.currentProgress.totalUnitCount, Int64(body.count))
    }

    func testDownloadCancelledHalfWayStopsAtHalf() {
        let download = NetworkDownloadProcedure(session: counting, request: request("/halves/100000/stopped"))
        ProcedureQueue().addOperation(download)
        waitForProgress(of: download) { $0.completedUnitCount == 50_000 }
        download.cancel()
        wait(for: download)
        XCTAssertEqual(download.currentProgress.fractionCompleted, 0.5)
        XCTAssertTrue(download.progress.isCancelled)
    }

    func testSessionThatCountsNothingReportsOnlyTheFinish() {
        let fetch = NetworkDataProcedure(session: session, request: request("/bytes/1000"))
        _ = fetch.currentProgress
        wait(for: fetch)
        XCTAssertEqual(fetch.currentProgress.fractionCompleted, 1)
    }
}
