import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A procedure that fetches a request's response body into memory.
///
/// ```swift
/// let fetch = NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url))
/// queue.addOperation(fetch)
/// // later: fetch.output?.payload, fetch.output?.response.statusCode
/// ```
///
/// Any HTTP response is a success, whatever its status code: look at
/// ``HTTPPayloadResponse/statusCode``, or use ``NetworkProcedure`` to retry transient failures and
/// reject error statuses. It fails with ``NetworkError`` when the request has no http(s) URL,
/// the connection fails or times out (the request's `timeoutInterval`), or the answer is not
/// HTTP. Cancelling it cancels the session's task at once and finishes it. The request can be
/// injected from another procedure's output (``Procedures/InputProcedure``).
public final class NetworkDataProcedure: NetworkTaskProcedure<URLRequest, Data>, @unchecked Sendable {
    // @unchecked: no state of its own (see NetworkTaskProcedure).

    /// Fetches `request` (or, if nil, the request injected later) with `session`.
    public init(session: any NetworkSession, request: URLRequest? = nil) {
        super.init(session: session, input: request, name: "NetworkData(\(request?.url?.absoluteString ?? "injected"))")
    }

    override func request(in input: URLRequest) -> URLRequest { input }

    override func makeTask(for request: URLRequest, url: URL) -> any NetworkTask {
        session.makeDataTask(with: request) { [self] data, response, error in
            finish(answering: url, response: response, error: error, body: data) { data ?? Data() }
        }
    }
}
