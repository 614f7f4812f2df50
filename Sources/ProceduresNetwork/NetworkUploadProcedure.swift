import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A procedure that sends a body with a request (POST, PUT…) and fetches the response body.
///
/// Status codes, failures, cancellation and injection behave as for ``NetworkDataProcedure``.
public final class NetworkUploadProcedure: ResultProcedure<HTTPPayloadResponse<Data>>, InputProcedure,
    ProgressUnitsSource, @unchecked Sendable
{
    // @unchecked: as NetworkDataProcedure.

    /// The session that runs the request.
    public let session: any NetworkSession
    /// The request and its body; set it, or inject it.
    public var input: HTTPPayloadRequest<Data>?
    /// The status codes that count as success; any other fails the procedure with
    /// ``NetworkError/unacceptableStatus(_:url:body:retryAfter:)``. Nil (the default) accepts
    /// every status. Set it before the procedure executes (``NetworkProcedure`` does).
    public var acceptableStatusCodes: Set<Int>?
    private let runner = NetworkTaskRunner()

    /// Sends `body` with `request` through `session`.
    public convenience init(session: any NetworkSession, request: URLRequest, body: Data) {
        self.init(session: session, input: HTTPPayloadRequest(payload: body, request: request))
    }

    /// Sends `input` (or the input injected later) through `session`.
    public init(session: any NetworkSession, input: HTTPPayloadRequest<Data>? = nil) {
        self.session = session
        self.input = input
        super.init()
        name = "NetworkUpload(\(input?.request.url?.absoluteString ?? "injected"))"
    }

    /// Starts the task.
    public override func execute() {
        guard let url = NetworkTaskRunner.url(toFetch: input?.request, for: self), let input else { return }
        runner.run(
            session.makeUploadTask(with: input.request, from: input.payload) { [self] data, response, error in
                runner.taskCompleted()
                guard !isCancelled else { return finish() }  // the only finish of a started request
                NetworkTaskRunner.finish(self, with: NetworkTaskRunner.outcome(
                    url: url, payload: data ?? Data(), response: response, error: error,
                    acceptableStatusCodes: acceptableStatusCodes, body: data))
            }, for: self)
    }

    /// Its progress counts bytes of the body sent, with a session that counts them (see
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
