import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A procedure that sends a body with a request (POST, PUT…) and fetches the response body.
///
/// Status codes, failures, cancellation and injection behave as for ``NetworkDataProcedure``.
public final class NetworkUploadProcedure: NetworkTaskProcedure<HTTPPayloadRequest<Data>, Data>, @unchecked Sendable {
    // @unchecked: no state of its own (see NetworkTaskProcedure).

    /// Sends `body` with `request` through `session`.
    public convenience init(session: any NetworkSession, request: URLRequest, body: Data) {
        self.init(session: session, input: HTTPPayloadRequest(payload: body, request: request))
    }

    /// Sends `input` (or the input injected later) through `session`.
    public init(session: any NetworkSession, input: HTTPPayloadRequest<Data>? = nil) {
        super.init(session: session, input: input, name: "NetworkUpload(\(input?.request.url?.absoluteString ?? "injected"))")
    }

    override func request(in input: HTTPPayloadRequest<Data>) -> URLRequest { input.request }

    override func makeTask(for input: HTTPPayloadRequest<Data>, url: URL) -> any NetworkTask {
        session.makeUploadTask(with: input.request, from: input.payload) { [self] data, response, error in
            finish(answering: url, response: response, error: error, body: data) { data ?? Data() }
        }
    }
}
