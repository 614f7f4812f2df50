import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// What ``NetworkDataProcedure``, ``NetworkDownloadProcedure`` and ``NetworkUploadProcedure``
/// share: a session, an input that carries the request (set or injected), the status codes
/// that count as success, and a session task that a cancel stops at once. It is not made on its
/// own: use one of the three.
///
/// Executing, it checks the request (no input fails with
/// ``Procedures/ProcedureError/missingInput(name:)``, a URL that is not http(s) with a host with
/// ``NetworkError/invalidURL(_:)``), starts the session's task, and finishes with the answer:
/// ``NetworkError/transport(_:)`` if the request did not complete,
/// ``NetworkError/notHTTPResponse(url:)``, ``NetworkError/unacceptableStatus(_:url:body:retryAfter:)``,
/// ``NetworkError/noPayload(url:)``, or the response and its payload. Cancelling it cancels the
/// task; it then finishes cancelled, whatever the session answers.
public class NetworkTaskProcedure<Input: Sendable, Payload: Sendable>: ResultProcedure<HTTPPayloadResponse<Payload>>,
    InputProcedure, NetworkRequestProcedure, ProgressUnitsSource, @unchecked Sendable
{
    // @unchecked: `input` and `acceptableStatusCodes` are written before execute() only
    // (callbacks never overlap); `task` and `lastProgress` are guarded by `taskLock`;
    // `session` is immutable.

    /// The session that runs the request.
    public let session: any NetworkSession
    /// What the request is made from; set it, or inject it.
    public var input: Input?
    /// The status codes that count as success; any other fails the procedure with
    /// ``NetworkError/unacceptableStatus(_:url:body:retryAfter:)``. Nil (the default) accepts
    /// every status. Set it before the procedure executes (``NetworkProcedure`` does).
    public var acceptableStatusCodes: Set<Int>?
    private let taskLock = NSLock()
    private var task: (any NetworkTask)?
    /// The task's byte count when it completed, so that the progress does not drop back.
    private var lastProgress: ProgressUnits?

    init(session: any NetworkSession, input: Input?, name: String) {
        self.session = session
        self.input = input
        super.init()
        self.name = name
    }

    /// The request `input` stands for (each subclass says).
    func request(in input: Input) -> URLRequest {
        preconditionFailure("\(type(of: self)) must override request(in:)")
    }

    /// The session's task for `input`, whose completion handler calls
    /// ``finish(answering:response:error:body:payload:)`` (each subclass says).
    func makeTask(for input: Input, url: URL) -> any NetworkTask {
        preconditionFailure("\(type(of: self)) must override makeTask(for:url:)")
    }

    /// Checks the request and starts the task.
    public final override func execute() {
        guard let input else { return finish(withError: ProcedureError.missingInput(name: displayName)) }
        let url: URL
        do { url = try Self.validatedURL(of: request(in: input)) } catch { return finish(withError: error) }
        let task = makeTask(for: input, url: url)
        // Stored before it starts, for a cancel; execute() never overlaps the did-cancel hook.
        taskLock.withLock { self.task = task }
        task.resume()
        progressTrackingBegan()
    }

    /// Its progress counts bytes moved (received, or an upload's body sent), with a session
    /// that counts them (see ``ProgressReportingSession``).
    package var progressUnits: ProgressUnits {
        let (running, last) = taskLock.withLock { (task, lastProgress) }
        if let counted = running?.transferProgress { return counted }
        return last ?? ProgressUnits(completed: 0, of: 0)
    }

    /// Reads the byte count ten times a second while the task runs and someone tracks the
    /// procedure's progress (from the start, or from when they begin to).
    package func progressTrackingBegan() {
        guard taskLock.withLock({ task != nil }) else { return }
        pollProgress(every: 0.1, clock: SystemClock.shared)
    }

    /// Cancels the task at once; the procedure finishes when the session reports it stopped.
    public final override func procedureDidCancel(withErrors errors: [any Error]) {
        super.procedureDidCancel(withErrors: errors)
        taskLock.withLock { task }?.cancel()
    }

    /// Finishes with the session's answer to the request for `url`. `body` is what an error
    /// status keeps; `payload` is read only for an answer that succeeded.
    final func finish(
        answering url: URL, response: URLResponse?, error: (any Error)?, body: Data?,
        payload: () throws(NetworkError) -> Payload?
    ) {
        let completed = taskLock.withLock { task }
        let last = completed?.transferProgress  // read outside the lock: the task's own code
        taskLock.withLock {
            lastProgress = last
            task = nil
        }
        // The only place that finishes a started request, so a cancel racing the answer
        // cannot make two finishes: cancelled, it ends with the cancel errors.
        guard !isCancelled else { return finish() }
        do {
            finish(withOutput: try Self.answer(
                url: url, response: response, error: error, body: body,
                acceptableStatusCodes: acceptableStatusCodes, payload: payload))
        } catch {
            finish(withError: error)
        }
    }

    /// The request's URL, if the procedures can fetch it (http or https, with a host).
    private static func validatedURL(of request: URLRequest) throws(NetworkError) -> URL {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw .invalidURL(request.url?.absoluteString ?? "(no URL)") }
        return url
    }

    /// The HTTP response and payload of a completed task, or why there is none.
    private static func answer(
        url: URL, response: URLResponse?, error: (any Error)?, body: Data?, acceptableStatusCodes: Set<Int>?,
        payload: () throws(NetworkError) -> Payload?
    ) throws -> HTTPPayloadResponse<Payload> {
        if let error { throw NetworkError.urlError(from: error).map(NetworkError.transport) ?? error }
        guard let http = response as? HTTPURLResponse else { throw NetworkError.notHTTPResponse(url: url.absoluteString) }
        if let acceptableStatusCodes, !acceptableStatusCodes.contains(http.statusCode) {
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap { NetworkError.retryAfterSeconds($0) }
            throw NetworkError.unacceptableStatus(
                http.statusCode, url: url.absoluteString, body: body ?? Data(), retryAfter: retryAfter)
        }
        guard let payload = try payload() else { throw NetworkError.noPayload(url: url.absoluteString) }
        return HTTPPayloadResponse(payload: payload, response: http)
    }
}
