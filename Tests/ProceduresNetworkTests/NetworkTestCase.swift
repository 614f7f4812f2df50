import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ProceduresNetwork
import ProceduresTesting
import XCTest

/// Starts a loopback server and an ephemeral URLSession for each test.
class NetworkTestCase: XCTestCase {
    private(set) var server: LoopbackHTTPServer!
    private(set) var session: URLSession!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try LoopbackHTTPServer()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        // Cancelling a data task during its cache look-up crashes FoundationNetworking on Linux
        // (see the guide, and NetworkAnswerShapeTests' stress test): no cache, as it advises.
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    override func tearDown() {
        session.invalidateAndCancel()
        session = nil
        server.stop()
        server = nil
        super.tearDown()
    }

    func request(_ path: String, timeout: TimeInterval = 10) -> URLRequest {
        var request = URLRequest(url: server.url(path))
        request.timeoutInterval = timeout
        return request
    }

    /// Waits, watching on a timer, until `condition` holds (for state outside any procedure,
    /// like the server's request count).
    func waitUntil(_ what: String, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
                   _ condition: @escaping @Sendable () -> Bool) {
        let met = expectation(description: what)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler {
            if condition() {
                timer.cancel()
                met.fulfill()
            }
        }
        timer.schedule(deadline: .now(), repeating: .milliseconds(5))
        timer.resume()
        let result = XCTWaiter().wait(for: [met], timeout: timeout)
        timer.cancel()
        XCTAssertEqual(result, .completed, "timed out waiting until \(what)", file: file, line: line)
    }

    func networkError(_ errors: [any Error], file: StaticString = #filePath, line: UInt = #line) -> NetworkError? {
        guard let error = errors.first as? NetworkError else {
            XCTFail("expected a NetworkError, got \(errors)", file: file, line: line)
            return nil
        }
        return error
    }
}
