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
public final class NetworkDataProcedure: ResultProcedure<HTTPPayloadResponse<Data>>, InputProcedure,
    ProgressUnitsSource, @unchecked Sendable
{
    // @unchecked: `input` and `acceptableStatusCodes` are written before execute() only
    // (callbacks never overlap); the runner has its own lock; `session` is immutable.

    /// The session that runs the request.
    public let session: any NetworkSession
    /// The request; set it, or inject it.
    public var input: URLRequest?
    /// The status codes that count as success; any other fails the procedure with
    /// ``NetworkError/unacceptableStatus(_:url:body:retryAfter:)``. Nil (the default) accepts
    /// every status. Set it before the procedure executes (``NetworkProcedure`` does).
    public var acceptableStatusCodes: Set<Int>?
    private let runner = NetworkTaskRunner()

    /// Fetches `request` (or, if nil, the request injected later) with `session`.
    public init(session: any NetworkSession, request: URLRequest? = nil) {
        self.session = session
        input = request
        super.init()
        name = "NetworkData(\(request?.url?.absoluteString ?? "injected"))"
    }

    /// Starts the task.
    public override func execute() {
        guard let url = NetworkTaskRunner.url(toFetch: input, for: self), let request = input else { return }
        runner.run(
            session.makeDataTask(with: request) { [self] data, response, error in
                runner.taskCompleted()
                // The only place that finishes a started request, so a cancel racing the
                // answer cannot make two finishes: cancelled, it ends with the cancel errors.
                guard !isCancelled else { return finish() }
                NetworkTaskRunner.finish(self, with: NetworkTaskRunner.outcome(
                    url: url, payload: data ?? Data(), response: response, error: error,
                    acceptableStatusCodes: acceptableStatusCodes, body: data))
            }, for: self)
    }

    /// Its progress counts bytes received, with a session that counts them (see
    /// ``ProgressReportingSession``).
    package var progressUnits: ProgressUnits { runner.progressUnits }

    /// Polls the byte count from now on if the request is running.
    package func progressTrackingBegan() { runner.pollProgress(of: self) }

    /// Cancels the task at once; the procedure finishes when the session reports it stopped.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        super.procedureDidCancel(withErrors: errors)
        runner.cancel()
    }
}
